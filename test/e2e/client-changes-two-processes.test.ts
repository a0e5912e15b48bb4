/**
 * The change feed between real processes (docs/behaviour.md#changes-across-processes): two
 * `coregate serve` on one PostgreSQL database, and `coregate clients disable|enable` run as a
 * CLI process of its own (it opens the database itself). Both servers refuse the client at
 * their token endpoint and its token at their gateway within a second of the command's exit —
 * with COREGATE_CLIENT_CACHE_SECONDS at its maximum of 60. `clients update --require-bound-tokens`
 * likewise stops the client's unbound tokens everywhere within a second.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createFreshDatabase, postgresSkip, type FreshDatabase } from '../support/postgres.js';
import {
  killAll,
  requestToken,
  runCli,
  runJson,
  startServer,
  tempDataDir,
  type CreatedClient,
  type ServerProcess,
} from './support/process.js';

after(killAll);

const CHANGE_ARRIVES_MS = 1000;

describe(
  'a CLI process changing a client reaches two running servers at once',
  { skip: postgresSkip, timeout: 240_000 },
  () => {
    let database: FreshDatabase;
    let data: { dir: string; remove: () => void };
    let servers: ServerProcess[] = [];
    let env: Record<string, string>;
    let client: CreatedClient;
    let token: string;

    before(async () => {
      data = tempDataDir();
      database = await createFreshDatabase();
      env = {
        DATABASE_URL: database.url,
        COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        COREGATE_DATA_DIR: data.dir,
        COREGATE_ISSUER: 'http://coregate.client-changes.test',
        COREGATE_CLIENT_CACHE_SECONDS: '60',
      };
      client = await runJson<CreatedClient>(['clients', 'create', '--name', 'changes', '--json'], env);
      servers = [await startServer(env), await startServer(env)];
      const issued = await requestToken(servers[0]!.url, client);
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      token = String(issued.body['access_token']);
    });

    after(async () => {
      await Promise.allSettled(servers.map((server) => server.stop()));
      await database?.drop();
      data?.remove();
    });

    /** 401 when the bearer check refuses the token; anything else (no association yet: 4xx) means admitted. */
    async function gatewayStatus(server: ServerProcess): Promise<number> {
      const response = await fetch(`${server.url}/core/accounts?customerId=nobody`, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(5_000),
      });
      await response.arrayBuffer();
      return response.status;
    }

    /** Waits until every server answers as `refused` says (a refused client: `400 invalid_client`); returns the milliseconds it took. */
    async function everyServer(refused: boolean, since: number): Promise<number> {
      for (;;) {
        const answers = await Promise.all(
          servers.map(async (server) => ({
            token: (await requestToken(server.url, client)).status,
            gateway: await gatewayStatus(server),
          })),
        );
        const done = answers.every((answer) =>
          refused ? answer.token === 400 && answer.gateway === 401 : answer.token === 200 && answer.gateway !== 401,
        );
        const elapsed = performance.now() - since;
        if (done) return elapsed;
        assert.ok(
          elapsed < CHANGE_ARRIVES_MS,
          `not ${refused ? 'refused' : 'admitted'} everywhere within ${CHANGE_ARRIVES_MS} ms: ${JSON.stringify(answers)}`,
        );
        await sleep(25);
      }
    }

    it('both servers admit the client, twice each', async () => {
      // Twice each, so that what the servers cache is in their caches before the changes below
      // must drop it. That they answer from the cache is checked where reads can be counted:
      // test/http/changes/one-process.test.ts.
      await everyServer(false, performance.now());
      await everyServer(false, performance.now());
    });

    it('`clients disable` in a CLI process: refused at both token endpoints and both gateways within 1 s', async () => {
      const result = await runCli(['clients', 'disable', client.client_id], env);
      assert.equal(result.code, 0, result.stderr);
      const ms = await everyServer(true, performance.now());
      assert.ok(ms < CHANGE_ARRIVES_MS, `${ms} ms`);
    });

    it('`clients enable` in a CLI process: admitted again everywhere within 1 s', async () => {
      const result = await runCli(['clients', 'enable', client.client_id], env);
      assert.equal(result.code, 0, result.stderr);
      await everyServer(false, performance.now());
    });

    it('`clients update --require-bound-tokens` in a CLI process: its unbound token refused at both gateways within 1 s', async () => {
      for (const server of servers) assert.notEqual(await gatewayStatus(server), 401, 'admitted before');
      const result = await runCli(['clients', 'update', client.client_id, '--require-bound-tokens'], env);
      assert.equal(result.code, 0, result.stderr);
      const since = performance.now();
      for (;;) {
        const statuses = await Promise.all(servers.map((server) => gatewayStatus(server)));
        if (statuses.every((status) => status === 401)) break;
        const elapsed = performance.now() - since;
        assert.ok(
          elapsed < CHANGE_ARRIVES_MS,
          `not refused everywhere within ${CHANGE_ARRIVES_MS} ms: ${statuses.join(', ')}`,
        );
        await sleep(25);
      }
    });
  },
);
