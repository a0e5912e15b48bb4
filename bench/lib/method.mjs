/** The method section of docs/benchmarks.md: kept beside the code that does what it says. */

export const METHOD = {
  profiles: [
    'coregate is run once more per scenario under `node --cpu-prof` (same load, same durations; these runs are not in the',
    'table, the profiler costs CPU). Only samples from the measured window count, idle excluded. "Self time" is time in the',
    'function itself; "total time" includes what it calls, up to the first `await` (work resumed after an await, such as',
  'the WebCrypto job, is charged to the microtask queue, not to its caller). Profiles are written to `bench/results/*.cpuprofile`',
    '(open them in Chrome DevTools → Performance, or speedscope).',
  ].join('\n'),
  text: `## How to run

\`\`\`sh
npm run bench                         # full run (about 6 minutes here); regenerates this page
npm run bench -- --quick              # smoke run, under a minute; does not touch this page
npm run bench -- --only token,storm   # some scenarios: token, accounts, registration, storm, scale, ceiling
npm run bench -- --storage pglite     # only one storage (postgres, pglite)
npm run bench -- --no-profile         # skip the CPU profiles of a full run (--profile adds them to any run)
\`\`\`

It needs PostgreSQL for the PostgreSQL figures (\`COREGATE_BENCH_PG_URL\`, default
\`postgres://postgres@127.0.0.1:5432/postgres\`; each use gets a fresh database, dropped at the end);
without it those scenarios are skipped. The run exits non-zero when a check or a request failed.
Results: \`bench/results/latest.json\` (not committed) and, for full runs, this page.

## Method

- **Everything on loopback, started by the suite**: coregate (\`node bin/coregate serve\`, \`LOG_LEVEL=warn\`,
  per-client and per-IP rate limits raised to 10⁹/minute — still enforced, so their cost is measured, but out
  of reach of one benchmark client),
  the core simulator over HTTP (\`node bin/coregate core-sim\`, coregate's \`CORE_URL\`), the baselines
  (\`bench/baselines/\`), and the load generator — autocannon in a child process
  (\`bench/lib/load-worker.mjs\`), 50 connections, a warm-up, then the measured run.
- **Pinning** (Linux, \`taskset\`): the server under test — coregate or the baseline it is compared with —
  runs alone on CPU 0; the load generator and the core simulator share CPU 1. PostgreSQL's processes are
  not the suite's and are not pinned: they run on either CPU, so on PostgreSQL part of the database's work
  competes with the server under test, as it would on a small host.
- **Correctness first**: before loading, every scenario checks that it gets the right answer — a token that
  verifies against the server's JWKS with the right issuer, client and scope; the simulator's exact account
  records for the customer; the registered customerKey; a 201 from the core. A failed check fails the
  scenario without measuring. During the load every non-2xx answer and every socket error or timeout is
  counted; any of them marks the run failed.
- **Figures**: req/s = answers in the measured run ÷ its duration. p50/p99 are recorded by the load
  generator per request in microseconds (autocannon's own histogram has whole milliseconds). CPU µs/request
  = user + system CPU time of the server process from \`/proc/<pid>/stat\` over the measured run ÷ answers;
  "server CPU" is the share of its core the server used (100% = saturated); "other CPU" is what every
  other process of the machine used meanwhile (PostgreSQL's backends included; on a PGlite or baseline row
  it is other people's work on a shared machine: before each measurement the suite waits up to 20 s for
  the machine to be idle, and measures a figure again, up to twice, when other processes used 60% of a CPU
  or more during it; a figure still disturbed after that is marked "(disturbed)"). RSS is the largest
  \`VmRSS\` sampled every 200 ms during the measured run. "of ceiling" compares req/s with the raw
  node:http server of scenario 7. Ratios (vs baseline) compare figures of the same run.
- **Baselines**: oidc-provider 8 (the last line for Node 20) with client_credentials,
  client_secret_basic, and EdDSA-signed JWT access tokens for one resource indicator (coregate signs
  with EdDSA too), in-memory client; a bare pass-through proxy (node:http + undici \`Pool.stream()\`, 32
  connections like coregate's core connector) that forwards \`GET /v1/accounts\` with a fixed
  X-Delegate-Reference-Id obtained at start, and \`POST /v1/sessions\` bodies as they come; a raw node:http
  server returning coregate's accounts body.

## Scenarios

1. **Token issuance** — \`POST /oauth2/token\`, \`grant_type=client_credentials&scope=core/main\`, HTTP Basic;
   coregate on PostgreSQL vs oidc-provider. Targets: ≥ 1.5× oidc-provider's req/s, p99 ≤ oidc-provider's.
2. **Accounts hot path** — \`GET /core/accounts?customerId=…\` for a customer registered beforehand (demo
   customer C-1001, three accounts) whose core session is valid, vs the bare proxy to the same simulator.
   Targets: ≥ 0.6× the proxy's req/s, p99 ≤ 2× the proxy's.
3. **Registration** — \`POST /core/sessions\` (Form A demographics) with a new customerId and a new customer of
   the simulator's generated population (\`generatedDemographics(n)\`, n counting up from 100000) on every
   request, vs the bare proxy forwarding the same start-session call. Target: ≥ 0.5× the proxy's req/s.
4. **Renewal storm** — 200 concurrent account calls (connections opened beforehand) for one customer whose
   core session has just expired, 20 times, in two ways: the simulator invalidates every session
   (\`POST /_sim/sessions/expire\`; coregate learns it from the core's 401 and renews once), and a simulator
   with \`--session-ttl 2\` under \`COREGATE_SESSION_SKEW_SECONDS=0\` (the suite waits for the session to run
   out; coregate sees it expired). Core sessions started per storm come from \`/_sim/stats\`. Target: exactly
   1 per storm, every storm; every answer a 200 with the right accounts.
5. **Storage** — scenarios 2 and 3 on PostgreSQL and on embedded PGlite (a fresh data directory).
6. **Scale** — scenario 2 on PostgreSQL with 1,000 associations and with 1,000,000, same servers and customer,
   in the order 1,000 → 1,000,000 → 1,000 (the 1,000-row figure is the mean of both, so drift during the run is
   not taken for an effect of size): the measured customer is registered through the API, the others are
   bulk-loaded with \`INSERT … SELECT generate_series\` (copies of a real sealed value; never opened), then
   \`VACUUM ANALYZE\` and \`CHECKPOINT\`; going back, \`DELETE\` and \`VACUUM FULL\`. coregate caches associations in
   process (\`COREGATE_ASSOCIATION_CACHE_SECONDS\`, 5 s), so a hot customer seldom reaches the table; a second
   coregate on the same database runs with that cache off, so the table's index is on every request's path.
   Targets: ≥ 0.9× the req/s, p99 ≤ 1.2× of the 1,000-association figure. (\`--quick\` uses 100,000.)
7. **Ceiling** — the raw node:http server, so every figure can be read against this machine's speed.

Also a target: coregate's RSS under load < 200 MB, on each storage (largest RSS of its runs there).

## Reading the figures

- With two CPUs, the load side (autocannon + simulator) has one CPU. When its share ("load CPU" in
  latest.json, noted below the table when ≥ 90%) is near 100%, a figure is bounded by the load side, not by
  the server: the ceiling and the bare proxy are the rows most exposed to that.
- PGlite runs inside coregate's process: its CPU and memory are in coregate's figures. PostgreSQL's are not.
- Benchmarks on a shared machine move by a few percent from run to run; compare ratios, not absolutes.
`,
};
