/**
 * `coregate sessions import` (docs/operations.md#importing-customers) as an operator runs it:
 * a real `coregate serve` in front of a real `coregate core-sim`, the platform's client
 * credentials in a file, a small JSON Lines file with good lines, refused ones and lines
 * that are not registrations at all. Every line gets its result under its line number,
 * nothing of what a line held besides its customerId is printed, and a bad line never
 * stops the import.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoregateClient } from '@coregate/client';
import { generatedDemographics } from '../../src/fakes/core-simulator/demo-data.js';
import { createFreshDatabase, postgresSkip, type FreshDatabase } from '../support/postgres.js';
import { startCoreSim, type CoreSim } from './support/core-sim.js';
import {
  killAll,
  runCli,
  startServer,
  tempDataDir,
  type CreatedClient,
  type Env,
  type ServerProcess,
} from './support/process.js';

after(killAll);

interface LineResult {
  line: number;
  customerId?: string;
  ok: boolean;
  customerKey?: string;
  status?: number;
  reason?: string;
  message?: string;
  errors?: Array<{ path: string; message: string }>;
  requestId?: string;
}

const body = (customerId: string, customerKey: string) =>
  JSON.stringify({ customer: { customerKey }, registration: { customerId } });

describe('coregate sessions import', { skip: postgresSkip, timeout: 180_000 }, () => {
  let database: FreshDatabase;
  let sim: CoreSim;
  let server: ServerProcess;
  let data: { dir: string; remove: () => void };
  let env: Env;
  let credentialsFile: string;
  const person = generatedDemographics(700_002);

  before(async () => {
    data = tempDataDir();
    [database, sim] = await Promise.all([createFreshDatabase(), startCoreSim()]);
    env = {
      DATABASE_URL: database.url,
      COREGATE_DATA_DIR: data.dir,
      COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      CORE_URL: sim.url,
    };
    const create = await runCli(
      ['clients', 'create', '--name', 'importer', '--platform', 'importing', '--json'],
      env,
      60_000,
    );
    assert.equal(create.code, 0, create.stderr);
    credentialsFile = join(data.dir, 'importer.json');
    writeFileSync(credentialsFile, create.stdout, { mode: 0o600 });
    server = await startServer(env, 60_000);
    // A customer registered before the import, for the conflict and the repeat.
    const created = JSON.parse(create.stdout) as CreatedClient;
    await new CoregateClient({
      baseUrl: server.url,
      clientId: created.client_id,
      clientSecret: created.client_secret,
    }).registerCustomer({ customerId: 'known', customer: { customerKey: 'C-700050' } });
  });

  after(async () => {
    await server?.stop().catch(() => undefined);
    sim?.stop();
    await database?.drop();
    data?.remove();
  });

  it('registers the good lines, reports every other line under its number, prints no personal data, exits 1', async () => {
    const lines = [
      /* 1 */ body('imp-1', 'C-700001'),
      /* 2 */ JSON.stringify({
        demographics: {
          socialSecurityNumber: person.socialSecurityNumber,
          accountNumber: person.accountNumber,
          birthDay: person.birthDay,
        },
        registration: { customerId: 'imp-2' },
      }),
      /* 3 */ '',
      /* 4 */ `{"demographics": {"socialSecurityNumber": "${person.socialSecurityNumber}"`,
      /* 5 */ '[1, 2]',
      /* 6 */ body('imp-unknown', 'C-0000000'),
      /* 7 */ body('has blanks', 'C-700007'),
      /* 8 */ body('known', 'C-700009'),
      /* 9 */ body('known', 'C-700050'),
      /* 10 */ body('imp-10', 'C-700010'),
    ];
    const file = join(data.dir, 'customers.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const sessions = await sim.stats();
    const run = await runCli(
      [
        'sessions',
        'import',
        '--file',
        file,
        '--credentials',
        credentialsFile,
        '--url',
        server.url,
        '--concurrency',
        '4',
      ],
      env,
    );
    assert.equal(run.code, 1, `some lines were not registered:\n${run.stderr}`);
    const results = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LineResult);
    const byLine = new Map(results.map((result) => [result.line, result]));
    assert.deepEqual(
      [...byLine.keys()].sort((a, b) => a - b),
      [1, 2, 4, 5, 6, 7, 8, 9, 10],
      'one result per line that is not blank',
    );
    const outcome = (line: number) => {
      const result = byLine.get(line)!;
      return result.ok
        ? ['ok', result.customerId, result.customerKey]
        : [result.status ?? null, result.customerId ?? null, result.reason];
    };
    assert.deepEqual(outcome(1), ['ok', 'imp-1', 'C-700001']);
    assert.deepEqual(outcome(2), ['ok', 'imp-2', 'C-700002']);
    assert.deepEqual(outcome(4), [null, null, 'invalid_line']);
    assert.deepEqual(outcome(5), [null, null, 'invalid_line']);
    assert.deepEqual(outcome(6), [401, 'imp-unknown', 'customer_not_recognised']);
    assert.deepEqual(outcome(7), [400, 'has blanks', 'invalid_request']);
    assert.ok(
      byLine.get(7)!.errors?.some((error) => error.path === '/registration/customerId'),
      'the bad field is named',
    );
    assert.deepEqual(outcome(8), [409, 'known', 'customer_id_taken']);
    assert.deepEqual(outcome(9), ['ok', 'known', 'C-700050'], 'the same customer again: registered, idempotently');
    assert.deepEqual(outcome(10), ['ok', 'imp-10', 'C-700010']);
    assert.match(byLine.get(6)!.requestId ?? '', /\S/, 'a refused line names its request id for support');
    for (const secret of [
      person.socialSecurityNumber,
      person.socialSecurityNumber.replace(/-/g, ''),
      person.accountNumber,
      person.birthDay,
    ]) {
      assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), 'no personal data printed');
    }
    assert.match(run.stderr, /^registered: 4$/m);
    assert.match(run.stderr, /^failed: 5 \(/m);
    assert.match(run.stderr, /invalid_line 2/);
    const after = await sim.stats();
    assert.equal(
      after.sessionsStarted - sessions.sessionsStarted,
      5,
      'one core session per registered line (the repeat starts a fresh one), one for the 409; none for the other refused lines',
    );
    assert.equal(after.activeSessions - sessions.activeSessions, 4, 'the 409 ended the session it started');
  });

  it('with --results and --json: the results in the file, one JSON summary on stdout, exit 0 when every line was registered', async () => {
    const file = join(data.dir, 'more.jsonl');
    writeFileSync(
      file,
      Array.from({ length: 60 }, (_, index) => body(`more-${index}`, `C-${710_000 + index}`)).join('\r\n'),
    );
    const resultsFile = join(data.dir, 'more-results.jsonl');
    const run = await runCli(
      [
        'sessions',
        'import',
        '--file',
        file,
        '--credentials',
        credentialsFile,
        '--url',
        server.url,
        '--results',
        resultsFile,
        '--json',
      ],
      env,
    );
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual(
      {
        lines: summary['lines'],
        registered: summary['registered'],
        failed: summary['failed'],
        reasons: summary['reasons'],
      },
      { lines: 60, registered: 60, failed: 0, reasons: {} },
    );
    const results = readFileSync(resultsFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LineResult);
    assert.equal(results.length, 60);
    assert.deepEqual(
      results.map((result) => result.line).sort((a, b) => a - b),
      Array.from({ length: 60 }, (_, index) => index + 1),
    );
    assert.ok(results.every((result) => result.ok && result.customerId === `more-${result.line - 1}`));
  });

  it('refuses, before sending anything, what it cannot work with: no secret on the command line, nor in any message', async () => {
    const file = join(data.dir, 'one.jsonl');
    writeFileSync(file, body('never', 'C-720000'));
    const broken = join(data.dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ client_id: 'cg_x', secret: 'cgs_do-not-print' }), { mode: 0o600 });
    const cases: Array<[string[], RegExp]> = [
      [['--file', file], /--credentials is required/],
      [['--credentials', credentialsFile], /--file is required/],
      [
        ['--file', file, '--credentials', credentialsFile, '--json'],
        /--json prints the summary on stdout: give --results FILE/,
      ],
      [['--file', file, '--credentials', broken], /expected client_id and client_secret/],
      [
        ['--file', join(data.dir, 'missing.jsonl'), '--credentials', credentialsFile, '--url', server.url],
        /--file .*missing\.jsonl: cannot read it \(ENOENT\)/,
      ],
      [
        ['--file', file, '--credentials', credentialsFile, '--concurrency', '0'],
        /--concurrency must be a whole number from 1 to 256/,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(['sessions', 'import', ...args], env);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stderr, /cgs_/);
      assert.equal(run.stdout, '');
    }
  });

  it('credentials the token endpoint refuses stop the import at once, with the reason', async () => {
    const file = join(data.dir, 'refused.jsonl');
    writeFileSync(
      file,
      Array.from({ length: 200 }, (_, index) => body(`refused-${index}`, `C-${730_000 + index}`)).join('\n'),
    );
    const wrong = join(data.dir, 'wrong.json');
    const created = JSON.parse(readFileSync(credentialsFile, 'utf8')) as CreatedClient;
    writeFileSync(wrong, JSON.stringify({ ...created, client_secret: 'cgs_wrong' }), { mode: 0o644 });
    const run = await runCli(['sessions', 'import', '--file', file, '--credentials', wrong, '--url', server.url], env);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /readable by other users/);
    assert.match(
      run.stderr,
      /^stopped: the token endpoint refused the client \(invalid_client\): check the credentials file/m,
    );
    assert.doesNotMatch(run.stderr, /cgs_/);
  });
});
