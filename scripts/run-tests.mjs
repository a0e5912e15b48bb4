#!/usr/bin/env node
// Runs every compiled test file with node's test runner. Before that it checks the
// PostgreSQL server the PostgreSQL tests use: under CI an unreachable server fails
// the run; elsewhere those tests are skipped with the reason. Each test file makes
// its own fresh database (named with this run's id); the run drops them at the end.
//
// `--coverage` (`npm test`): every test process, and every server and command they start,
// writes V8's coverage (NODE_V8_COVERAGE); c8 reports it against the sources (.c8rc.json:
// what counts, and the floor of line coverage) and the run fails below the floor. The run
// ends with one plain line: tests passed and failed, and the line coverage against its floor.
//
// A test file's tier is the folder it lives in. `--fast` (`npm run test:fast`, the inner
// loop) runs test/unit, test/contract and test/http, on the embedded engine only
// (`COREGATE_TEST_ENGINE=pglite`: PostgreSQL is neither checked nor used). Every other
// folder runs in `npm test` only: test/e2e (real processes, the clone install, the browser),
// test/sdk (the client package against a server, the tarball) and test/slow (suites that
// wait out real timeouts of real parts — a relay that blackholes the database, a paused
// Redis, a half-failing core, a collector that does not answer — or make certificates with
// openssl for a TLS listener). A new test goes in the folder of its tier; nothing here lists
// files. `--timings`: each file's wall time, slowest first, into coregate-test-timings.txt.
// Other arguments are substrings of test paths.
//
// Time limits: there is no per-file limit here. A suite that needs more than a few seconds
// says how long in its own `timeout` option, about twice what it took with the whole run
// pinned to one core of a loaded 2-core host (`taskset -c 0 npm test -- --timings`), so a CI
// host half as fast still has room. Run `--timings` after adding a slow suite and compare.
// The slowest suites' limits were set from a run pinned to one core while other work kept
// both cores busy (`taskset -c 1 node scripts/run-tests.mjs <files> --timings`): each says
// what it took there. A step inside a suite waits for its condition, not for a fixed time:
// the suite's limit bounds the wait (a CLI command's own limit only guards against a hang).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const root = new URL('..', import.meta.url).pathname;
const testRoot = join(root, 'dist', 'test');
const fast = process.argv.includes('--fast');
const coverage = process.argv.includes('--coverage');
const timings = process.argv.includes('--timings');
const filter = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const FAST_TIERS = ['unit', 'contract', 'http'].map((tier) => `${join(testRoot, tier)}/`);

function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const files = collect(testRoot)
  .filter((file) => !fast || FAST_TIERS.some((tier) => file.startsWith(tier)))
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/test (did the build run?)');
  process.exit(1);
}

const adminUrl = process.env.COREGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const runId = `${process.pid.toString(36)}${Date.now().toString(36)}`;
const env = { ...process.env, COREGATE_TEST_PG_URL: adminUrl, COREGATE_TEST_RUN_ID: runId };
delete env.DATABASE_URL;
if (fast) env.COREGATE_TEST_ENGINE = 'pglite';

async function adminClient() {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  await client.connect();
  return client;
}

// The fast tier neither checks nor uses PostgreSQL (test/support/postgres.ts skips its suites).
if (env.COREGATE_TEST_ENGINE !== 'pglite') {
  try {
    const client = await adminClient();
    await client.end();
  } catch (error) {
    const reason = `PostgreSQL at ${adminUrl.replace(/\/\/[^@]*@/, '//')} is unreachable: ${error.message}`;
    if (process.env.CI === 'true') {
      console.error(`FAIL: ${reason} (CI requires the PostgreSQL tests)`);
      process.exit(1);
    }
    console.error(`warning: ${reason}; PostgreSQL tests will be skipped`);
    env.COREGATE_TEST_PG_SKIP = reason;
  }
}

// One migrated embedded cluster for the whole run, made once: every test process loads a
// copy of its dump (test/support/backends.ts) instead of making and migrating a cluster of
// its own, and the end-to-end tests' data dirs start as a copy of its directory
// (test/e2e/support/process.ts): initdb in WebAssembly costs ~4 s of CPU per cluster.
const templateFile = join(tmpdir(), `coregate-test-${runId}.pgdump`);
const templateDir = join(tmpdir(), `coregate-test-${runId}-cluster`);
{
  const { PgliteDatabase } = await import('../dist/src/adapters/store/pglite-database.js');
  const { migrate } = await import('../dist/src/adapters/store/migrate.js');
  const database = await PgliteDatabase.open(templateDir);
  await migrate(database);
  writeFileSync(templateFile, Buffer.from(await (await database.dump()).arrayBuffer()));
  await database.close();
  env.COREGATE_TEST_PGLITE_TEMPLATE = templateFile;
  env.COREGATE_TEST_PGLITE_TEMPLATE_DIR = templateDir;
}

// --liftoff-only: each test process compiles PGlite's WebAssembly (~9 MB) with V8's baseline
// compiler only. By default V8 also optimises it in background threads, ~2 s of CPU per test
// process that short tests never repay (the suite is CPU-bound on 2 cores). The test runner
// passes its own flags on to every test file's process; servers the end-to-end tests spawn
// run as deployed.
// The runner's own report (spec on a terminal, TAP otherwise, as without these flags) and
// the totals, for the run's last line.
const totalsFile = join(tmpdir(), `coregate-test-${runId}.totals.json`);
const coverageDir = coverage ? mkdtempSync(join(tmpdir(), `coregate-test-${runId}-coverage-`)) : undefined;
if (coverageDir) env.NODE_V8_COVERAGE = coverageDir;
const reporters = [
  `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
  '--test-reporter-destination=stdout',
  `--test-reporter=${join(root, 'scripts', 'test-totals-reporter.mjs')}`,
  `--test-reporter-destination=${totalsFile}`,
];
// --timings: each file's wall time, slowest first, into coregate-test-timings.txt.
const timingsFile = join(root, 'coregate-test-timings.txt');
if (timings)
  reporters.push(
    `--test-reporter=${join(root, 'scripts', 'test-timings-reporter.mjs')}`,
    `--test-reporter-destination=${timingsFile}`,
  );
const child = spawn(process.execPath, ['--liftoff-only', '--test', '--test-concurrency=3', ...reporters, ...files], {
  stdio: 'inherit',
  env,
  cwd: root,
});
let code = await new Promise((resolve) => child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));

if (!env.COREGATE_TEST_PG_SKIP && env.COREGATE_TEST_ENGINE !== 'pglite') {
  try {
    const client = await adminClient();
    const { rows } = await client.query('select datname from pg_database where datname like $1', [
      `coregate_test_${runId}_%`,
    ]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
    await client.end();
  } catch (error) {
    console.error(`warning: could not drop this run's test databases: ${error.message}`);
  }
}
rmSync(templateFile, { force: true });
rmSync(templateDir, { recursive: true, force: true });

let coverageLine = '';
if (coverageDir) {
  const floor = JSON.parse(readFileSync(join(root, '.c8rc.json'), 'utf8')).lines;
  const reportsDir = join(root, 'coverage');
  // c8's own command (its options from .c8rc.json), run by path: knip is told it is used (knip.json).
  const report = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'c8', 'bin', 'c8.js'),
      'report',
      `--temp-directory=${coverageDir}`,
      `--reports-dir=${reportsDir}`,
      '--check-coverage=false',
    ],
    { stdio: 'inherit', cwd: root },
  );
  rmSync(coverageDir, { recursive: true, force: true });
  let lines;
  try {
    lines = JSON.parse(readFileSync(join(reportsDir, 'coverage-summary.json'), 'utf8')).total.lines.pct;
  } catch (error) {
    console.error(`coverage: no summary (c8 exited ${report.status}): ${error.message}`);
  }
  const below = lines === undefined || lines < floor;
  if (below) code ||= 1;
  coverageLine = `; line coverage ${lines ?? '?'} % (floor ${floor} %${below ? ': BELOW THE FLOOR' : ''})`;
}
let totals = {};
try {
  totals = JSON.parse(readFileSync(totalsFile, 'utf8'));
} catch {
  // The runner ended before its summary: the exit status says so.
}
rmSync(totalsFile, { force: true });
const count = (name) => totals[name] ?? '?';
console.log(
  `${count('pass')} passed, ${count('fail')} failed, ${count('skipped')} skipped, ${count('cancelled')} cancelled${coverageLine}`,
);
process.exit(code);
