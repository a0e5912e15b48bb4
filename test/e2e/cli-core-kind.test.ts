/**
 * A spawned `bin/coregate` on both storage engines: institutions of kind `fineract` added,
 * shown, listed and updated (JSON and text), the service user sealed and never printed, and the
 * refusals naming the option at fault; then `coregate core check` against the simulator (over
 * HTTP, as an institution, and in process as `default`) passing, and against a core that breaks
 * the protocol failing, with the failing checks named and exit status 1.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startCoreSim, type RunningCoreSim } from '../../src/server/core-sim.js';
import {
  startFineractStandIn,
  type RunningFineractStandIn,
} from '../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import { createFreshDatabase, postgresSkip, type FreshDatabase } from '../support/postgres.js';
import { killAll, runCli, runJson, tempDataDir, type CliResult, type Env } from './support/process.js';

after(killAll);

const PASSWORD = 'Fineract-pa55:word';
const KEY = Buffer.alloc(32, 9).toString('base64');

interface InstitutionJson {
  id: string;
  coreUrl: string | null;
  coreKind: string;
  hasApiKey: boolean;
  hasCredentials: boolean;
  fineract?: { tenant: string; ssnDocumentType: string; customerKey: string; sessionTtlSeconds: number };
}

interface CheckJson {
  ok: boolean;
  checks: Array<{ name: string; ok: boolean; detail: string }>;
}

/** Every file below `dir`, for a search of the embedded database's pages. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

interface Engine {
  readonly name: string;
  readonly skip: string | false;
  open(): Promise<{ env: Env; rawRows: () => Promise<string>; close: () => Promise<void> }>;
}

const ENGINES: readonly Engine[] = [
  {
    name: 'embedded',
    skip: false,
    async open() {
      const data = tempDataDir();
      return {
        env: { COREGATE_DATA_DIR: data.dir },
        // The database's own files: a password stored in clear would be in them.
        rawRows: async () =>
          filesUnder(join(data.dir, 'pg'))
            .map((file) => readFileSync(file, 'latin1'))
            .join(''),
        close: async () => data.remove(),
      };
    },
  },
  {
    name: 'postgres',
    skip: postgresSkip,
    async open() {
      const data = tempDataDir();
      const database: FreshDatabase = await createFreshDatabase();
      return {
        env: { COREGATE_DATA_DIR: data.dir, DATABASE_URL: database.url, COREGATE_ENCRYPTION_KEY: KEY },
        rawRows: async () => {
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          try {
            return JSON.stringify((await client.query('select * from institutions')).rows);
          } finally {
            await client.end();
          }
        },
        close: async () => {
          await database.drop();
          data.remove();
        },
      };
    },
  },
];

for (const engine of ENGINES) {
  describe(
    `coregate institutions --core-kind fineract (${engine.name})`,
    { skip: engine.skip, timeout: 300_000 },
    () => {
      it('adds, shows, lists and updates a Fineract institution; the service user is sealed and never printed', async (t) => {
        const opened = await engine.open();
        t.after(opened.close);
        const { env } = opened;
        const credentials = join(env['COREGATE_DATA_DIR']!, 'bank-f.credentials');
        writeFileSync(credentials, `coregate-ro:${PASSWORD}\n`);
        const noColon = join(env['COREGATE_DATA_DIR']!, 'no-colon.credentials');
        writeFileSync(noColon, 'coregate-ro\n');
        const add = (id: string) => [
          'institutions',
          'add',
          '--id',
          id,
          '--name',
          'Bank F',
          '--core-kind',
          'fineract',
          '--core-url',
          'https://fineract.bank-f.example/fineract-provider',
        ];

        const added = await runCli(
          [...add('bank-f'), '--fineract-tenant', 'bank-f', '--core-credentials-file', credentials, '--json'],
          env,
        );
        assert.equal(added.code, 0, added.stderr);
        assert.doesNotMatch(added.stdout + added.stderr, new RegExp(PASSWORD), 'never printed');
        const json = JSON.parse(added.stdout) as InstitutionJson;
        assert.equal(json.coreKind, 'fineract');
        assert.deepEqual(json.fineract, {
          tenant: 'bank-f',
          ssnDocumentType: 'SSN',
          customerKey: 'id',
          ssnLookup: 'client-search',
          sessionTtlSeconds: 900,
        });
        assert.equal(json.hasCredentials, true);
        assert.equal(json.hasApiKey, false);
        assert.doesNotMatch(await opened.rawRows(), new RegExp(PASSWORD), 'sealed at rest');

        const shown = await runJson<InstitutionJson>(['institutions', 'show', 'bank-f', '--json'], env);
        assert.deepEqual(shown.fineract, json.fineract);
        const listed = await runJson<InstitutionJson[]>(['institutions', 'list', '--json'], env);
        assert.deepEqual(
          listed.map((institution) => [institution.id, institution.coreKind, institution.hasCredentials]),
          [
            ['bank-f', 'fineract', true],
            ['default', 'coregate', false],
          ],
        );
        assert.equal(listed.find((institution) => institution.id === 'default')?.fineract, undefined);
        const text = await runCli(['institutions', 'show', 'bank-f'], env);
        assert.match(text.stdout, /^core_kind: +fineract$/m);
        assert.match(text.stdout, /^fineract_tenant: +bank-f$/m);
        assert.match(text.stdout, /^has_credentials: +true$/m);
        assert.doesNotMatch(text.stdout, new RegExp(PASSWORD));

        const updatedRun = await runCli(
          [
            'institutions',
            'update',
            'bank-f',
            '--fineract-customer-key',
            'external-id',
            '--fineract-session-ttl-seconds',
            '600',
            '--fineract-ssn-document-type',
            'Social Security Number',
            '--fineract-ssn-lookup',
            'identifier-search',
            '--json',
          ],
          env,
        );
        assert.equal(updatedRun.code, 0, updatedRun.stderr);
        const updated = JSON.parse(updatedRun.stdout) as InstitutionJson;
        assert.deepEqual(updated.fineract, {
          tenant: 'bank-f',
          ssnDocumentType: 'Social Security Number',
          customerKey: 'external-id',
          ssnLookup: 'identifier-search',
          sessionTtlSeconds: 600,
        });
        assert.match(updatedRun.stderr, /the SSN travels in the query string of GET \/v1\/search/);
        const lookupText = await runCli(['institutions', 'show', 'bank-f'], env);
        assert.match(
          lookupText.stdout,
          /^fineract_ssn_lookup: +identifier-search +\(the SSN travels in the query string/m,
        );
        assert.equal(updated.hasCredentials, true, 'an update without a credentials file keeps the service user');

        // Refusals, each naming its option.
        const base = add('bank-g');
        const refusals: ReadonlyArray<readonly [string[], number, RegExp]> = [
          [
            [...base, '--core-credentials-file', credentials],
            2,
            /--fineract-tenant is required with --core-kind fineract/,
          ],
          [[...base, '--fineract-tenant', 't'], 2, /--core-credentials-file is required with --core-kind fineract/],
          [
            [...base, '--fineract-tenant', 't', '--core-credentials-file', noColon],
            1,
            /--core-credentials-file: must hold username:password/,
          ],
          [
            [
              ...base,
              '--fineract-tenant',
              't',
              '--core-credentials-file',
              credentials,
              '--fineract-customer-key',
              'accountNo',
            ],
            1,
            /--fineract-customer-key: must be one of id, external-id/,
          ],
          [
            [
              ...base,
              '--fineract-tenant',
              't',
              '--core-credentials-file',
              credentials,
              '--fineract-session-ttl-seconds',
              '5',
            ],
            2,
            /--fineract-session-ttl-seconds must be a whole number from 60 to 86400/,
          ],
          [
            [
              'institutions',
              'add',
              '--id',
              'bank-x',
              '--name',
              'X',
              '--core-url',
              'http://x',
              '--fineract-tenant',
              't',
            ],
            1,
            /--fineract-tenant: needs --core-kind fineract/,
          ],
          [
            ['institutions', 'update', 'default', '--core-kind', 'fineract'],
            1,
            /--core-kind: the default institution takes its core from the configuration/,
          ],
        ];
        // The same checks on either engine: made once, on PostgreSQL where it runs, all at once (a
        // command there neither loads the embedded database nor waits for its data dir's lock).
        if (engine.name !== (postgresSkip ? 'embedded' : 'postgres')) return;
        const answers: CliResult[] = [];
        if (engine.name === 'postgres')
          answers.push(...(await Promise.all(refusals.map(([args]) => runCli(args, env)))));
        else for (const [args] of refusals) answers.push(await runCli(args, env));
        for (const [index, refused] of answers.entries()) {
          const [args, code, message] = refusals[index]!;
          assert.equal(refused.code, code, `${args.join(' ')}: ${refused.stderr}`);
          assert.match(refused.stderr, message);
        }
      });
    },
  );
}

describe('coregate core check', { timeout: 420_000 }, () => {
  let sim: RunningCoreSim;
  let broken: Server;
  let brokenUrl: string;

  before(async () => {
    sim = await startCoreSim({ port: 0, host: '127.0.0.1', sessionTtlSeconds: 900 });
    // A core that answers the reference protocol's paths, but badly: a record with a field of
    // the wrong type and one missing, for any delegate reference ID, made up or not.
    broken = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      if (request.url === '/v1/sessions' && request.method === 'POST') {
        response.end(
          JSON.stringify({
            customerKey: 'C-1001',
            delegateReferenceId: 'DRID-1',
            expiresAt: new Date(Date.now() + 600_000).toISOString(),
          }),
        );
      } else if (request.url === '/v1/accounts') {
        response.end(JSON.stringify({ accounts: [{ id: 'A1', customerKey: 'C-1001', interestRate: 'five' }] }));
      } else {
        response.end('{}');
      }
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  });
  after(async () => {
    await sim?.close();
    await new Promise((resolve) => broken?.close(resolve));
  });

  it('passes against the simulator over HTTP, as an institution and in process as default', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };

    const atUrl = await runCli(['core', 'check', '--core-url', sim.url, '--customer-key', 'C-1001', '--json'], env);
    assert.equal(atUrl.code, 0, atUrl.stderr + atUrl.stdout);
    const report = JSON.parse(atUrl.stdout) as CheckJson;
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.checks.map((check) => [check.name, check.ok]),
      [
        ['readiness', true],
        ['session', true],
        ['accounts', true],
        ['transactions', true],
        ['forged_session_rejected', true],
        ['end_session', true],
      ],
    );
    assert.match(report.checks[2]!.detail, /^3 account\(s\)/);
    assert.match(report.checks[3]!.detail, /^100 transaction\(s\)/);
    // Nothing read from the core: no account number, balance field value or customer name.
    assert.doesNotMatch(atUrl.stdout, /70001234|Ada|DRID/i);

    await runJson(['institutions', 'add', '--id', 'bank-b', '--name', 'Bank B', '--core-url', sim.url, '--json'], env);
    const asInstitution = await runJson<CheckJson>(
      ['core', 'check', '--institution', 'bank-b', '--customer-key', 'C-1001', '--json'],
      env,
    );
    assert.equal(asInstitution.ok, true, JSON.stringify(asInstitution));

    const inProcess = await runCli(['core', 'check', '--institution', 'default', '--customer-key', 'C-1001'], env);
    assert.equal(inProcess.code, 0, inProcess.stderr);
    assert.match(inProcess.stdout, /^PASS readiness: /m);
    assert.match(inProcess.stdout, /^PASS accounts: 3 account\(s\)/m);
    assert.match(inProcess.stdout, /^PASS transactions: 100 transaction\(s\)/m);
    assert.match(inProcess.stdout, /^all 6 checks passed$/m);

    const noKey = await runCli(['core', 'check', '--institution', 'default'], env);
    assert.equal(noKey.code, 0, noKey.stderr);
    assert.match(noKey.stderr, /no --customer-key/);
    assert.match(noKey.stdout, /^PASS forged_session_rejected: /m);
  });

  it('fails with the failing checks named and exit status 1 against a broken or unreachable core', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };

    const bad = await runCli(['core', 'check', '--core-url', brokenUrl, '--customer-key', 'C-1001'], env);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stdout, /^PASS session: /m);
    assert.match(bad.stdout, /^FAIL accounts: expected the session's accounts; got .*interestRate/m);
    assert.match(bad.stdout, /^FAIL forged_session_rejected: expected a delegate reference ID the core never issued/m);
    assert.doesNotMatch(bad.stdout, /DRID-1|five/);

    const badJson = JSON.parse(
      (await runCli(['core', 'check', '--core-url', brokenUrl, '--customer-key', 'C-1001', '--json'], env)).stdout,
    ) as CheckJson;
    assert.equal(badJson.ok, false);
    assert.deepEqual(
      badJson.checks.filter((check) => !check.ok).map((check) => check.name),
      ['accounts', 'forged_session_rejected'],
    );

    const unknownCustomer = await runJson<CheckJson>(
      ['core', 'check', '--core-url', sim.url, '--customer-key', 'C-9999', '--json'],
      env,
    ).catch(() => undefined);
    assert.equal(unknownCustomer, undefined, 'exit status 1');
    const unreachable = await runCli(['core', 'check', '--core-url', 'http://127.0.0.1:1', '--json'], env);
    assert.equal(unreachable.code, 1);
    const down = JSON.parse(unreachable.stdout) as CheckJson;
    assert.deepEqual(down.checks[0] && [down.checks[0].name, down.checks[0].ok], ['readiness', false]);

    const usage = await runCli(['core', 'check', '--customer-key', 'C-1001'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /give either --institution ID or --core-url URL/);
    const unknown = await runCli(['core', 'check', '--institution', 'nope'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no institution "nope"/);
  });
});

describe('coregate core check against the Fineract stand-in', { timeout: 420_000 }, () => {
  let standIn: RunningFineractStandIn;

  before(async () => {
    standIn = await startFineractStandIn({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await standIn?.close();
  });

  it('passes for the default institution on Fineract, and names the failing check when Fineract answers badly', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = {
      COREGATE_DATA_DIR: data.dir,
      COREGATE_CORE_KIND: 'fineract',
      CORE_URL: standIn.url,
      COREGATE_FINERACT_USERNAME: standIn.credentials.username,
      COREGATE_FINERACT_PASSWORD: standIn.credentials.password,
    };
    const good = await runCli(['core', 'check', '--institution', 'default', '--customer-key', '1', '--json'], env);
    assert.equal(good.code, 0, good.stderr + good.stdout);
    const report = JSON.parse(good.stdout) as CheckJson;
    assert.deepEqual(
      report.checks.map((check) => [check.name, check.ok]),
      [
        ['readiness', true],
        ['session', true],
        ['accounts', true],
        ['transactions', true],
        ['forged_session_rejected', true],
      ],
    );
    assert.match(report.checks[3]!.detail, /^\d+ transaction\(s\) of the first account in the last 90 days/);
    assert.doesNotMatch(good.stdout + good.stderr, new RegExp(standIn.credentials.password));

    standIn.setFaults({ malformed: true });
    const bad = await runCli(['core', 'check', '--institution', 'default', '--customer-key', '1'], env);
    standIn.setFaults({});
    assert.equal(bad.code, 1, bad.stderr + bad.stdout);
    assert.match(bad.stdout, /^FAIL session: /m);
  });

  it('tells a bank on Fineract 1.10 before go-live that Form A needs identifier-search, printing nothing of the file; names an unknown tenant', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const older = await startFineractStandIn({ port: 0, host: '127.0.0.1', release: '1.10' });
    t.after(() => older.close());
    const formA = join(data.dir, 'test-customer.json');
    writeFileSync(
      formA,
      JSON.stringify({ socialSecurityNumber: '123-45-6789', birthDay: '1980-04-12', accountNumber: '70001234' }),
    );
    const env = {
      COREGATE_DATA_DIR: data.dir,
      COREGATE_CORE_KIND: 'fineract',
      CORE_URL: older.url,
      COREGATE_FINERACT_USERNAME: older.credentials.username,
      COREGATE_FINERACT_PASSWORD: older.credentials.password,
    };
    const args = ['core', 'check', '--institution', 'default', '--customer-key', '1', '--form-a-file', formA];
    const search = await runCli(args, env);
    assert.equal(search.code, 1, search.stderr + search.stdout);
    assert.match(search.stdout, /^FAIL form_a: .*set --fineract-ssn-lookup identifier-search, or off/m);
    const byIdentifier = await runCli(args, { ...env, COREGATE_FINERACT_SSN_LOOKUP: 'identifier-search' });
    assert.equal(byIdentifier.code, 0, byIdentifier.stderr + byIdentifier.stdout);
    assert.match(byIdentifier.stdout, /^PASS form_a: the test customer was found by demographics$/m);
    for (const run of [search, byIdentifier])
      assert.doesNotMatch(run.stdout + run.stderr, /123-?45-?6789|1980-04-12|70001234/);
    const tenant = await runCli(['core', 'check', '--institution', 'default'], {
      ...env,
      COREGATE_FINERACT_TENANT: 'elsewhere',
    });
    assert.equal(tenant.code, 1);
    assert.match(tenant.stdout, /^FAIL readiness: .*Fineract does not know the tenant "elsewhere"/m);
  });
});
