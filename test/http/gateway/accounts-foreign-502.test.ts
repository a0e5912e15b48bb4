/**
 * A core that answers `GET /v1/accounts` with records of another customer (all of them or
 * some) breaks the association's promise: the platform gets 502 `core_failed` and none of the
 * records, and the log line counts them without naming a customer key
 * (docs/behaviour.md#accounts). The core here is the simulator over real HTTP, its answer
 * rewritten on the wire.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpCoreConnector } from '../../../src/adapters/core/http-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { simulatorHandler } from '../../../src/fakes/core-simulator/simulator-server.js';
import { createLogger } from '../../../src/adapters/logging/logger.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertError,
  assertSuccess,
  BAD_GATEWAY,
  BOB,
  FollowingClock,
  formB,
  getAccounts,
  postSession,
  uniqueId,
} from './gateway-requests.js';

const FOREIGN_KEY = 'C-FOREIGN-77';

type Rewrite = (accounts: Array<Record<string, unknown>>) => Array<Record<string, unknown>>;

/** Passes the simulator's answer on, the accounts list rewritten by `rewrite()` when one is set. */
function rewritingHandler(
  inner: (req: IncomingMessage, res: ServerResponse) => void,
  rewrite: () => Rewrite | undefined,
) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const change = rewrite();
    if (!change || !req.url?.startsWith('/v1/accounts')) return inner(req, res);
    const chunks: Buffer[] = [];
    const original = { writeHead: res.writeHead.bind(res), end: res.end.bind(res) };
    let status = 200;
    let headers: Record<string, string> = {};
    res.writeHead = ((code: number, h?: Record<string, string>) => {
      status = code;
      headers = { ...(h ?? {}) };
      return res;
    }) as typeof res.writeHead;
    res.write = ((chunk: Buffer | string) => (chunks.push(Buffer.from(chunk)), true)) as typeof res.write;
    res.end = ((chunk?: Buffer | string) => {
      if (chunk) chunks.push(Buffer.from(chunk));
      let body = Buffer.concat(chunks).toString('utf8');
      if (status === 200) {
        const parsed = JSON.parse(body) as { accounts: Array<Record<string, unknown>> };
        body = JSON.stringify({ accounts: change(parsed.accounts) });
      }
      delete headers['content-length'];
      delete headers['Content-Length'];
      original.writeHead(status, { ...headers, 'content-type': 'application/json' });
      return original.end(body);
    }) as typeof res.end;
    inner(req, res);
  };
}

for (const backend of BACKENDS) {
  describe(
    `accounts of another customer from the core (${backend.name})`,
    { skip: backend.skip, timeout: 30_000 },
    () => {
      let h: Harness;
      let token: string;
      let server: Server;
      let core: HttpCoreConnector;
      let rewrite: Rewrite | undefined;
      let registered: string;
      const lines: string[] = [];
      const clock = new FollowingClock();
      const simulator = new CoreSimulator({ clock, sessionTtlSeconds: 600 });

      before(async () => {
        server = createServer(rewritingHandler(simulatorHandler(simulator), () => rewrite));
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        core = new HttpCoreConnector({
          baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          timeoutMs: 1000,
        });
        const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
        h = await createHarness(backend, { core, logger, env: { COREGATE_CORE_BREAKER_FAILURES: '0' } });
        clock.target = h.clock;
        const client = await h.client({ platform: 'foreign-accounts' });
        token = await h.token(client);
        registered = uniqueId('foreign');
        assertSuccess(await postSession(h, { token }, formB(registered, BOB.customerKey)));
        assert.ok(BOB.accounts.length >= 2, 'the test customer has several accounts');
      });
      after(async () => {
        await h?.close();
        server?.closeAllConnections();
        await new Promise((resolve) => server?.close(resolve));
      });

      const cases: Record<string, Rewrite> = {
        'every record': (accounts) => accounts.map((account) => ({ ...account, customerKey: FOREIGN_KEY })),
        'one record of several': (accounts) =>
          accounts.map((account, i) => (i === 1 ? { ...account, customerKey: FOREIGN_KEY } : account)),
        'an extra record appended': (accounts) => [...accounts, { ...accounts[0]!, customerKey: FOREIGN_KEY }],
      };
      for (const [what, change] of Object.entries(cases)) {
        it(`answers 502 core_failed when the core sends ${what} of another customer, logging the count only`, async () => {
          lines.length = 0;
          rewrite = change;
          let response;
          try {
            response = await getAccounts(h, { token }, registered);
          } finally {
            rewrite = undefined;
          }
          const envelope = assertError(response, BAD_GATEWAY, what);
          assert.equal(envelope.data['reason'], 'core_failed');
          assert.doesNotMatch(response.body, new RegExp(FOREIGN_KEY));
          const log = lines.join('');
          assert.match(log, /account records for another customer key/);
          assert.doesNotMatch(log, new RegExp(FOREIGN_KEY), 'the foreign key is never logged');
          assert.doesNotMatch(log, new RegExp(BOB.customerKey), 'nor the session’s');
          assert.deepEqual(assertSuccess(await getAccounts(h, { token }, registered)), BOB.accounts, 'healthy again');
        });
      }
    },
  );
}
