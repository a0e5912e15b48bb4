/**
 * Institutions across processes (docs/behaviour.md#institution-changes): two `coregate
 * core-sim` as two banks, two `coregate serve` on one PostgreSQL database, and the CLI — a
 * process of its own — adding a bank, binding a client to it, then disabling and enabling it.
 * Both servers follow each change within COREGATE_INSTITUTION_CACHE_SECONDS, without a restart.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { postgresSkip } from '../support/postgres.js';
import { startCoreSim, type CoreSim } from './support/core-sim.js';
import { killAll, requestToken, runJson, type CreatedClient, type ServerProcess } from './support/process.js';
import { openSharedDatabase, type SharedDatabase } from './support/shared-database.js';

after(killAll);

const CACHE_SECONDS = 2;
const INSTITUTION_KEYS = [
  'coreCaFile',
  'coreCertFile',
  'coreKeyFile',
  'coreKind',
  'coreSource',
  'coreTimeoutMs',
  'coreUrl',
  'createdAt',
  'enabled',
  'hasApiKey',
  'hasCredentials',
  'id',
  'name',
  'updatedAt',
];

describe('institutions: CLI changes reach two running servers', { skip: postgresSkip, timeout: 240_000 }, () => {
  let shared: SharedDatabase | undefined;
  let bankA: CoreSim;
  let bankB: CoreSim;
  let servers: ServerProcess[] = [];
  let env: Record<string, string>;
  let client: CreatedClient & { institution?: string };
  let token: string;

  before(async () => {
    [shared, bankA, bankB] = await Promise.all([openSharedDatabase(), startCoreSim(), startCoreSim()]);
    env = {
      ...shared.env,
      COREGATE_ISSUER: 'http://coregate.institutions.test',
      CORE_URL: bankA.url,
      COREGATE_INSTITUTION_CACHE_SECONDS: String(CACHE_SECONDS),
    };
    const added = await runJson<Record<string, unknown>>(
      ['institutions', 'add', '--id', 'bank-b', '--name', 'Bank B', '--core-url', bankB.url, '--json'],
      env,
    );
    assert.deepEqual(Object.keys(added).sort(), INSTITUTION_KEYS);
    assert.equal(added['hasApiKey'], false);
    assert.equal(added['enabled'], true);
    client = await runJson(
      ['clients', 'create', '--name', 'at bank b', '--platform', 'fintech', '--institution', 'bank-b', '--json'],
      env,
    );
    assert.equal(client.institution, 'bank-b');
    servers = await shared.startServers(2, env);
    const issued = await requestToken(servers[0]!.url, client);
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    token = String(issued.body['access_token']);
  });

  after(async () => {
    await shared?.close();
    bankA?.stop();
    bankB?.stop();
  });

  async function accounts(server: ServerProcess): Promise<number> {
    const response = await fetch(`${server.url}/core/accounts?customerId=at-b`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** Waits until both servers answer `status`; returns how long that took. */
  async function bothAnswer(status: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const statuses = await Promise.all(servers.map(accounts));
      if (statuses.every((each) => each === status)) return Date.now() - started;
      assert.ok(Date.now() - started < 30_000, `not ${status} within 30 s: ${statuses.join(', ')}`);
      await sleep(250);
    }
  }

  it('registers at bank B through one server and reads through the other', async () => {
    const registered = await fetch(`${servers[0]!.url}/core/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer: { customerKey: 'C-1002' }, registration: { customerId: 'at-b' } }),
    });
    assert.equal(registered.status, 200, await registered.text());
    assert.equal(await accounts(servers[1]!), 200);
    assert.equal((await bankB.stats()).sessionsStarted, 1);
    assert.equal((await bankA.stats()).sessionsStarted, 0, 'bank A was never asked');
  });

  it('disable and enable take effect in both servers within the cache time, without a restart', async () => {
    await runJson(['institutions', 'disable', 'bank-b', '--json'], env);
    const disabledAfter = await bothAnswer(503);
    assert.ok(disabledAfter < (CACHE_SECONDS + 5) * 1000, `disabled after ${disabledAfter} ms`);
    const refused = await requestToken(servers[1]!.url, client);
    assert.equal(refused.status, 400);
    assert.equal(refused.body['error'], 'invalid_client');
    await runJson(['institutions', 'enable', 'bank-b', '--json'], env);
    await bothAnswer(200);
  });
});
