/**
 * The change feed between real processes (docs/behaviour.md#changes-across-processes): two
 * `coregate serve` on one PostgreSQL database, and `coregate clients disable|enable` run as a
 * CLI process of its own (it opens the database itself). Both servers refuse the client at
 * their token endpoint and its token at their gateway at once, through the change feed —
 * with COREGATE_CLIENT_CACHE_SECONDS at its maximum of 60. `clients update --require-bound-tokens`
 * likewise stops the client's unbound tokens everywhere at once.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { postgresSkip } from '../support/postgres.js';
import { killAll, requestToken, runCli, runJson, type CreatedClient, type ServerProcess } from './support/process.js';
import { openSharedDatabase, type SharedDatabase } from './support/shared-database.js';

after(killAll);

// The change feed brings a change at once (a few milliseconds on an idle host); without it the
// servers would learn of it only when their client cache expires (COREGATE_CLIENT_CACHE_SECONDS,
// 60 s here). The bound tells the two apart on any host: a loaded CI host took longer than the
// 1 s this once was for the round of requests that looks.
const CHANGE_ARRIVES_MS = 10_000;

describe(
  'a CLI process changing a client reaches two running servers at once',
  { skip: postgresSkip, timeout: 240_000 },
  () => {
    let shared: SharedDatabase | undefined;
    let servers: ServerProcess[] = [];
    let env: Record<string, string>;
    let client: CreatedClient;
    let token: string;

    before(async () => {
      shared = await openSharedDatabase();
      env = {
        ...shared.env,
        COREGATE_ISSUER: 'http://coregate.client-changes.test',
        COREGATE_CLIENT_CACHE_SECONDS: '60',
      };
      client = await runJson<CreatedClient>(['clients', 'create', '--name', 'changes', '--json'], env);
      servers = await shared.startServers(2, env);
      const issued = await requestToken(servers[0]!.url, client);
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      token = String(issued.body['access_token']);
    });

    after(() => shared?.close());

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

    it('`clients disable` in a CLI process: refused at both token endpoints and both gateways, long before the cache expires', async () => {
      const result = await runCli(['clients', 'disable', client.client_id], env);
      assert.equal(result.code, 0, result.stderr);
      const ms = await everyServer(true, performance.now());
      assert.ok(ms < CHANGE_ARRIVES_MS, `${ms} ms`);
    });

    it('`clients enable` in a CLI process: admitted again everywhere, long before the cache expires', async () => {
      const result = await runCli(['clients', 'enable', client.client_id], env);
      assert.equal(result.code, 0, result.stderr);
      await everyServer(false, performance.now());
    });

    it('`clients update --require-bound-tokens` in a CLI process: its unbound token refused at both gateways, long before the cache expires', async () => {
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
