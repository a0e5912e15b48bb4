#!/usr/bin/env node
/**
 * `npm run bench` (CONTRACT §7): starts what it measures, runs the scenarios
 * beside their baselines, prints a table, writes bench/results/latest.json and,
 * after a full run, docs/benchmarks.md. See docs/benchmarks.md for the method.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { COMPARABLE, COMPARED_BY_DEFAULT, compareWith } from './lib/compare.mjs';
import { describeEnvironment } from './lib/environment.mjs';
import { startLoadGenerator } from './lib/load-client.mjs';
import { METHOD } from './lib/method.mjs';
import { cpuPlan } from './lib/pinning.mjs';
import { postgresHelper } from './lib/postgres.mjs';
import { onInterrupt, stopAll } from './lib/processes.mjs';
import {
  profileAccounts,
  profileAccountsDpop,
  profileRegistration,
  profileToken,
  profileTransactions,
  profileTransactionsSync,
} from './lib/profiling.mjs';
import { printReport, writeJson, writeMarkdown } from './lib/report.mjs';
import { createResults } from './lib/results.mjs';
import { CONFIGURATION, ROOT } from './lib/servers.mjs';
import { SCENARIOS } from './scenarios/index.mjs';
import { DEFAULTS } from '../dist/src/config/schema.js';

/**
 * Peak RSS of coregate (its process tree) under load, on each storage, over the
 * rows measured at the deployed configuration (a row with settings of its own,
 * such as two workers, is left out): < 200 MB on PostgreSQL; on PGlite, where the database
 * lives in coregate's process, no more than the peak of PGlite under the same load without coregate.
 */
function addRssTargets(results, storages) {
  for (const kind of storages) {
    const runs = results.rows.filter(
      (row) => row.subject === 'coregate' && row.rssMB !== undefined && !row.settings && row.variant?.startsWith(kind),
    );
    if (runs.length === 0) continue;
    const largest = runs.reduce((max, row) => (row.rssMB > max.rssMB ? row : max));
    const measured = `${largest.rssMB} MB (${largest.scenario}, ${largest.variant})`;
    if (kind === 'postgres')
      results.addTarget({
        scenario: 'all',
        name: 'coregate peak RSS under load (postgres)',
        required: '< 200 MB',
        measured,
        pass: largest.rssMB < 200,
      });
    else {
      // The database lives in coregate's process: the bound is what PGlite itself needs, the
      // smallest peak of the floors run on it (the same database under the same load, no coregate).
      const floors = results.rows.filter(
        (row) => /floor/.test(row.subject) && row.rssMB !== undefined && row.variant?.includes(kind),
      );
      if (floors.length === 0) continue;
      const floor = floors.reduce((min, row) => (row.rssMB < min.rssMB ? row : min));
      results.addTarget({
        scenario: 'all',
        name: `coregate peak RSS under load (${kind}, database in process)`,
        required: `≤ the ${kind} floor's own peak (${floor.rssMB} MB, ${floor.subject})`,
        measured,
        pass: largest.rssMB <= floor.rssMB,
      });
    }
  }
}

const USAGE = `Usage: npm run bench -- [options]

  --quick              smoke run: short loads, fewer storms, 100,000 associations (1–2 minutes)
  --only NAMES         comma-separated scenarios: ${SCENARIOS.flatMap((scenario) => scenario.names).join(', ')}
  --storage KINDS      comma-separated: postgres, pglite (default both)
  --profile            CPU-profile coregate on the token, accounts, accounts-dpop, registration and transactions scenarios (default in a full run)
  --no-profile         do not profile
  --compare REF        this checkout beside the build of git REF (e.g. HEAD~1) on ${COMPARED_BY_DEFAULT.join(' and ')}
                       (or the --only names among ${COMPARABLE.join(', ')}; registration in Form B), in rounds
                       taken in turn; prints CPU µs per request of each and their ratio; touches neither
                       docs/benchmarks.md nor bench/results
  --rounds N           with --compare: rounds per path (default 6, 4 s each after a 10 s warm-up)
  --rewrite-docs       measure nothing: write docs/benchmarks.md again from the last full run's
                       bench/results/full.json (after an edit of the method text, bench/lib/method.mjs)
  --help               this text`;

let values;
try {
  ({ values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      storage: { type: 'string' },
      profile: { type: 'boolean' },
      'no-profile': { type: 'boolean' },
      compare: { type: 'string' },
      rounds: { type: 'string' },
      'rewrite-docs': { type: 'boolean', default: false },
      help: { type: 'boolean' },
    },
    strict: true,
  }));
} catch (error) {
  process.stderr.write(`bench: ${error.message}\n\n${USAGE}\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const jsonFile = join(ROOT, 'bench', 'results', 'latest.json');
/** The last full run's results, kept apart so that a partial run after it does not take its place for --rewrite-docs. */
const fullJsonFile = join(ROOT, 'bench', 'results', 'full.json');
const docsFile = join(ROOT, 'docs', 'benchmarks.md');
if (values['rewrite-docs']) {
  // The figures stay those of the run; only the text around them is this checkout's.
  let last;
  try {
    last = JSON.parse(readFileSync(fullJsonFile, 'utf8'));
  } catch (error) {
    process.stderr.write(
      `bench: no full run to write from (${error.message}); docs/benchmarks.md is written from full runs only\n`,
    );
    process.exit(2);
  }
  writeMarkdown(docsFile, last, METHOD, { dbPoolMax: DEFAULTS.COREGATE_DB_POOL_MAX });
  process.stderr.write(`bench: wrote docs/benchmarks.md from the full run of ${last.startedAt}\n`);
  process.exit(0);
}

const known = new Set(SCENARIOS.flatMap((scenario) => scenario.names));
const only = values.only
  ?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);
for (const name of only ?? []) {
  if (!known.has(name)) {
    process.stderr.write(`bench: unknown scenario "${name}"\n\n${USAGE}\n`);
    process.exit(2);
  }
}
const compareRef = values.compare;
const compareRounds = values.rounds === undefined ? 6 : Number(values.rounds);
if (!Number.isInteger(compareRounds) || compareRounds < 1 || (values.rounds !== undefined && !compareRef)) {
  process.stderr.write(`bench: --rounds takes a whole number of at least 1, with --compare\n\n${USAGE}\n`);
  process.exit(2);
}
for (const name of compareRef ? (only ?? []) : []) {
  if (!COMPARABLE.includes(name)) {
    process.stderr.write(`bench: --compare measures ${COMPARABLE.join(', ')}, not "${name}"\n\n${USAGE}\n`);
    process.exit(2);
  }
}
const requestedStorages = values.storage?.split(',').map((kind) => kind.trim()) ?? ['postgres', 'pglite'];
for (const kind of requestedStorages) {
  if (kind !== 'postgres' && kind !== 'pglite') {
    process.stderr.write(`bench: unknown storage "${kind}"\n\n${USAGE}\n`);
    process.exit(2);
  }
}

const quick = values.quick;
const full = !quick && !only && !values.storage && !compareRef;
const profile = values['no-profile'] ? false : (values.profile ?? full);
const started = Date.now();
const log = (message) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);

const runId = `${process.pid.toString(36)}${Date.now().toString(36)}`;
const tmpDir = mkdtempSync(join(tmpdir(), 'coregate-bench-'));
const pg = postgresHelper(runId);
onInterrupt(() => pg.dropAll());
onInterrupt(() => rmSync(tmpDir, { recursive: true, force: true }));
const pgUnavailable = requestedStorages.includes('postgres') ? await pg.unavailable() : undefined;
if (pgUnavailable) log(`${pgUnavailable}: PostgreSQL figures are skipped`);
const storages = requestedStorages.filter((kind) => kind !== 'postgres' || !pgUnavailable);
if (storages.length === 0) {
  process.stderr.write('bench: no storage left to measure\n');
  process.exit(2);
}

const results = createResults();
const plan = cpuPlan();
const ctx = {
  plan,
  quick,
  runId,
  tmpDir,
  pg,
  pgUnavailable,
  storages,
  primaryStorage: storages.includes('postgres') ? 'postgres' : 'pglite',
  durations: compareRef
    ? { warmup: quick ? 2 : 10, measured: (quick ? 1 : 4) * compareRounds, rounds: compareRounds }
    : quick
      ? { warmup: 0.5, measured: 1.5, rounds: 3 }
      : // Eight short rounds rather than three long ones: the two CPUs' speeds drift apart within
        // seconds here (one round's ratio read 0.63× between two of 0.35× and 0.38×), and more
        // turns average that out; the sum over rounds is the same estimate, with less spread.
        { warmup: 10, measured: 16, rounds: 8 },
  stormRepeats: quick ? 2 : 20,
  // On a shared machine, wait (this long at most) for other work to calm down before each measurement.
  quietWaitMs: quick ? 0 : 20_000,
  // …and measure a figure again (at most this many times) when other work disturbed it.
  retriesWhenDisturbed: quick ? 0 : 2,
  // …within this much time, all waits and repeated measurements of the run together (about 15 minutes without them).
  patienceMs: quick ? 0 : 5 * 60_000,
  scaleRows: quick ? 100_000 : 1_000_000,
  encryptionKey: randomBytes(32).toString('base64'),
  captured: {},
  results,
  log,
  load: undefined,
};
log(
  plan.pinned
    ? `server under test on CPU ${plan.server}, load side on CPU ${plan.load}`
    : `not pinning (${plan.reason})`,
);
log(CONFIGURATION.summary);

if (compareRef) {
  let outcome;
  try {
    ctx.load = await startLoadGenerator(plan);
    outcome = await compareWith(ctx, compareRef, only ?? COMPARED_BY_DEFAULT);
  } finally {
    await ctx.load?.stop().catch(() => {});
    await stopAll();
    await pg.dropAll();
    rmSync(tmpDir, { recursive: true, force: true });
  }
  process.stdout.write(`${outcome.text}\n`);
  log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.exit(outcome.failed ? 1 : 0);
}

const selectedNames = only ?? [...known];
const selected = SCENARIOS.filter((scenario) => scenario.names.some((name) => selectedNames.includes(name)));
let profiles;
let environment;
try {
  ctx.load = await startLoadGenerator(plan);
  environment = await describeEnvironment(ctx);
  for (const scenario of selected) {
    log(`== ${scenario.title}`);
    try {
      await scenario.run(ctx, selectedNames);
    } catch (error) {
      log(`${scenario.names.join('/')} failed: ${error.stack ?? error}`);
      results.addFailure(scenario.names.join('/'), error);
    }
  }
  addRssTargets(results, storages);
  if (profile) {
    profiles = {};
    const profilers = [
      // The profile's name, the scenario it belongs to, the profiler.
      ['token', 'token', profileToken],
      ['accounts', 'accounts', profileAccounts],
      ['accounts-dpop', 'accounts-dpop', profileAccountsDpop],
      ['registration', 'registration', profileRegistration],
      ['transactions', 'transactions', profileTransactions],
      ['transactions-sync', 'transactions', profileTransactionsSync],
    ];
    // `--only registration --profile` profiles registration alone.
    for (const [name, , run] of profilers.filter(([, scenario]) => selectedNames.includes(scenario))) {
      log(`== CPU profile of coregate: ${name}`);
      try {
        profiles[name] = await run(ctx);
      } catch (error) {
        log(`profile ${name} failed: ${error.stack ?? error}`);
        profiles[name] = { error: error.message.split('\n')[0] };
      }
    }
  }
} finally {
  await ctx.load?.stop().catch(() => {});
  await stopAll();
  await pg.dropAll();
  rmSync(tmpDir, { recursive: true, force: true });
}

const report = {
  startedAt: new Date(started).toISOString(),
  finishedAt: new Date().toISOString(),
  mode: quick ? 'quick' : full ? 'full' : 'partial',
  scenarios: selectedNames,
  storages,
  durations: ctx.durations,
  connections: 50,
  configuration: CONFIGURATION,
  environment,
  rows: results.rows,
  targets: results.targets,
  failures: results.failures,
  failed: results.failures.length > 0,
  profiles,
};
printReport(report);
if (profiles) {
  for (const [name, summary] of Object.entries(profiles)) {
    if (summary.error) {
      process.stdout.write(`CPU profile ${name}: ${summary.error}\n`);
      continue;
    }
    process.stdout.write(`CPU profile ${name} (${summary.file}), top self time:\n`);
    for (const entry of summary.selfTop.slice(0, 12))
      process.stdout.write(`  ${entry.share.toFixed(1).padStart(5)}%  ${entry.key}\n`);
  }
}
writeJson(jsonFile, report);
log(`wrote bench/results/latest.json`);
if (full) {
  writeJson(fullJsonFile, report);
  writeMarkdown(docsFile, report, METHOD, { dbPoolMax: DEFAULTS.COREGATE_DB_POOL_MAX });
  log('wrote bench/results/full.json and docs/benchmarks.md');
} else {
  log('docs/benchmarks.md is regenerated by full runs only (no --quick, --only or --storage)');
}
log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exitCode = report.failed ? 1 : 0;
