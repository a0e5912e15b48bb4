/** The method section of docs/benchmarks.md: kept beside the code that does what it says. */

export const METHOD = {
  profiles: [
    'coregate is run once more per scenario under `node --cpu-prof` (same load, same durations; these runs are not in the',
    'table, the profiler costs CPU). Only samples from the measured window count, idle excluded. "Self time" is time in the',
    'function itself; "total time" includes what it calls, up to the first `await` (work resumed after an await, such as',
  'the WebCrypto job, is charged to the microtask queue, not to its caller). Profiles are written to `bench/results/*.cpuprofile`',
    '(open them in Chrome DevTools → Performance, or speedscope).',
  ].join('\n'),
  openLoop: [
    'Closed-loop figures say how much a server does at most; a user meets it at some ordinary rate. Here the accounts hot path',
    'is paced at a fixed rate, open loop (requests go out on schedule whether or not earlier ones were answered; see Method), on',
    'coregate and on the bare proxy in turn, and the difference of their percentiles is what coregate adds to what the user waits',
    'for. It has no target in issue 12.',
  ].join('\n'),
  scaling: {
    measured: [
      'Scenario 8: the same fixed rate with one worker and with two (`COREGATE_WORKERS`), the server allowed on both CPUs. On this',
      'two-core machine the load generator takes part of a CPU, so two workers cannot show twice the throughput here; what compares',
      "is the CPU time per request of all of coregate's processes at the same rate (the supervisor included), and what each request",
      'costs the database every worker and instance shares.',
    ].join('\n'),
    shared: [
      '**What grows with cores and instances, and what they share.** Workers (`COREGATE_WORKERS`, node:cluster: the supervisor',
      "hands each new connection to a worker) and instances behind a load balancer share nothing in memory, so coregate's own work —",
      'TLS, HTTP parsing, JWT signing and verification, validation, logging — scales with the cores given to it, at the CPU time per',
      'request above (its ratio to one worker is the cost of the cluster itself). What they share:',
      '',
      '- **PostgreSQL**: each process keeps its own pool of up to `COREGATE_DB_POOL_MAX` (10) connections, so connections grow with',
      "  processes × 10 against the server's `max_connections`; every request's transactions (the columns above) land on one primary.",
      "- **Redis**, only with `COREGATE_REDIS_URL` (not in this run: the default counts rate limits in each process's memory, so",
      "  N processes allow N times each budget): one round trip per `/core/*` request (the client's budget) and three per token",
      '  request (source address failures, source address budget, client budget), one after the other, each adding a network',
      '  round trip to the latency. Redis runs scripts on one thread, so three per token request is its share of the load.',
      "- **The core**: one core session per customer, renewed once for all processes (a renewal lease in the database); the core's",
      '  own capacity is outside coregate.',
    ].join('\n'),
    projection: [
      'Ten times the fixed rate, from the costlier of the two settings per request (coregate processes as many as cores needed;',
      'each with the default pool of 10 connections):',
    ].join('\n'),
    reasoning: [
      'So adding cores or instances lifts throughput in proportion until the shared pieces answer for it: the PostgreSQL primary',
      "(its CPU per request, its connections) and, once rate limits must hold across processes, Redis's round trips. Work a path",
      'does in the database on every request (the transactions per request above) lands on the shared primary; work served from a',
      "process's own cache, bounded in time, scales with coregate alone.",
    ].join('\n'),
  },
  text: `## How to run

\`\`\`sh
npm run bench                         # full run (about 13 minutes on an idle machine); regenerates this page
npm run bench -- --quick              # smoke run, 1–2 minutes; does not touch this page
npm run bench -- --only token,storm   # some scenarios: token, accounts, registration, storm, scale, ceiling, cores
npm run bench -- --storage pglite     # only one storage (postgres, pglite)
npm run bench -- --no-profile         # skip the CPU profiles of a full run (--profile adds them to any run)
\`\`\`

It needs PostgreSQL for the PostgreSQL figures (\`COREGATE_BENCH_PG_URL\`, default
\`postgres://postgres@127.0.0.1:5432/postgres\`; each use gets a fresh database, dropped at the end);
without it those scenarios are skipped. The run exits non-zero when a check or a request failed.
Results: \`bench/results/latest.json\` (not committed) and, for full runs, this page.

## Method

- **coregate as it is deployed**: \`node bin/coregate serve\` with every setting at its default, in production
  mode (\`NODE_ENV=production\`): \`LOG_LEVEL\` info (a JSON line per request, redaction included), the audit
  trail and the metrics on (they have no switch), rate limits counted in process. Besides where it finds its
  database, core and key (\`DATABASE_URL\` or \`COREGATE_DATA_DIR\`, \`CORE_URL\`, \`COREGATE_ENCRYPTION_KEY\`),
  **one setting differs from the defaults: the rate-limit budgets** (\`COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE\`,
  \`COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE\`, \`COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE\`) are raised to 10⁹/minute —
  still counted, so their cost is measured, but out of reach of one benchmark client that sends thousands of
  requests a second. A row that changes a setting more (two workers, a cache off, no renewal skew) names it.
  The run prints this configuration above its table.
- **Logs**: coregate's stderr (and stdout) go straight to a file in the run's temporary directory, as they
  would go to a log collector's pipe or a file in production; the file is deleted when the process stops, and
  its last lines are kept for the error message should the process fail. (Not a pipe to the suite: the suite
  would spend CPU reading megabytes a second beside the server under test, and once a pipe nobody reads is
  full, pino keeps every further line in memory: coregate's RSS grows by the log's size.)
- **Everything on loopback, started by the suite**: coregate, the core simulator over HTTP
  (\`node bin/coregate core-sim\`, coregate's \`CORE_URL\`), the baselines (\`bench/baselines/\`), and the load
  generator, in a child process (\`bench/lib/load-worker.mjs\`): closed loop with autocannon, 50 connections
  each sending its next request when the last is answered (what the server can do at most), or paced open
  loop (below); a warm-up, then the measured run.
- **Open loop** (the accounts latency at 1,000 req/s in scenario 2; scenario 8): request *i* is sent at *i* / rate seconds
  whether earlier ones were answered or not, on an undici Pool of up to 64 connections; latency runs from the
  moment the request is handed to the pool (a wait for a free connection included), and how late the load
  generator's millisecond timer was against the schedule is recorded beside it (noted when its p99 exceeds
  5 ms). autocannon's \`overallRate\` is not used for this: it lets every connection send its share of a second
  back to back and then idle until the next second, so "1,000 req/s" arrives as bursts of 50 concurrent
  requests in the first half of each second (measured: no answer at all in the second half).
- **Targets measured in turns**: the two comparisons with a target in req/s (token vs oidc-provider,
  accounts vs the bare proxy) keep both servers running and measure them in rounds taken in turn — each warmed
  up, then three rounds of a third of the measured time each, in the order baseline–subject,
  subject–baseline, baseline–subject. On a shared virtual machine the speed of a CPU drifts by tens of
  percent within minutes as neighbours come and go (seen here: the same code 315–545 µs per token request in
  four runs in a row); figures taken minutes apart compared those moments as much as the servers. Each
  side's rounds add up to its row (requests and CPU summed, percentiles over all its requests), and the row
  notes the req/s ratio of each round, so their spread shows how far the machine moved.
- **Warm-up to a steady state**: 10 s of the same load before anything is measured. With the server pinned to
  one CPU, V8's optimising compiler shares that CPU with the requests: coregate's token endpoint measured
  337, 232, 201, 201 µs per request in consecutive 5-second windows after a start, so a 5-second warm-up
  measured a server still compiling. A server in production has been warm for hours.
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
  = user + system CPU time of the server's processes (the process and its descendants: a supervisor and
  its workers) from \`/proc/<pid>/stat\` over the measured run ÷ answers;
  "server CPU" is the share of its core the server used (100% = saturated); "other CPU" is what every
  other process of the machine used meanwhile (PostgreSQL's backends included; on a PGlite or baseline row
  it is other people's work on a shared machine: before each measurement the suite waits up to 20 s for
  the machine to be idle, and measures a figure again, up to twice, when other processes used 60% of a CPU
  or more during it — all these waits and repeats together within 5 minutes per run, so that a machine that
  stays busy does not stretch a run without end; a figure still disturbed after that is marked "(disturbed)"). RSS is the largest sum
  of \`VmRSS\` over the server's processes, sampled every 200 ms during the measured run (pages that workers
  share count once per process). "of ceiling" compares req/s with the raw node:http server of scenario 7.
  Ratios (vs baseline) compare figures of the same run, each written with its target and a pass/MISS mark.
  PostgreSQL's part (scenario 8): CPU time of the PostgreSQL server processes connected to coregate's
  database (found in \`pg_stat_activity\`, read from \`/proc\`) ÷ answers, and the database's transactions
  (\`pg_stat_database\`, read 1.1 s after the warm-up and after the run, as PostgreSQL publishes them about
  once a second) ÷ answers; every statement outside a transaction block counts as one.
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
   Targets: ≥ 0.5× the proxy's req/s, p99 ≤ 2× the proxy's. Then both again at 1,000 req/s, open loop:
   the p50 and p99 coregate adds to the proxy's are the latency a user feels (reported; no target).
3. **Registration** — \`POST /core/sessions\` (Form A demographics) with a new customerId and a new customer of
   the simulator's generated population (\`generatedDemographics(n)\`, n counting up from 100000) on every
   request, vs the bare proxy forwarding the same start-session call. Target: ≥ 0.3× the proxy's req/s.
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
8. **Cores** — coregate on PostgreSQL with \`COREGATE_WORKERS=1\` and \`=2\`, each allowed on every CPU (the load
   generator and the simulator stay on CPU 1), paced at 1,500 req/s on the accounts hot path and on token
   issuance: CPU µs per request of all coregate processes, and PostgreSQL's CPU and transactions per request
   (see "Scaling with cores and instances"). Reported; no target.

Also a target: coregate's peak RSS under load < 200 MB on PostgreSQL (largest over its runs at the deployed
configuration); on PGlite, where the database lives in coregate's process, the peak is reported.

## Reading the figures

- With two CPUs, the load side (autocannon + simulator) has one CPU. When its share ("load CPU" in
  latest.json, noted below the table when ≥ 90%) is near 100%, a figure is bounded by the load side, not by
  the server: the ceiling and the bare proxy are the rows most exposed to that.
- PGlite runs inside coregate's process: its CPU and memory are in coregate's figures. PostgreSQL's are not
  (except in scenario 8's PostgreSQL columns).
- Benchmarks on a shared machine move by a few percent from run to run; compare ratios, not absolutes.
`,
};
