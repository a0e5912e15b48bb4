/**
 * `GET /healthz` (alive) and `GET /readyz` on both backends: unauthenticated, never
 * cached. docs/behaviour.md#health: 503 only when this instance cannot serve (the
 * database gone — PGlite closed; PostgreSQL through a relay the test cuts); the
 * core's state — unreachable (a closed port), refusing coregate's API key, a 5xx —
 * is named in the body of a 200 and in `coregate_dependency_up`, never why.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { HttpCoreConnector } from '../../../src/adapters/core/http-core-connector.js';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import {
  startSimulatorServer,
  type RunningSimulatorServer,
} from '../../../src/fakes/core-simulator/simulator-server.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { postgresSkip } from '../../support/postgres.js';
import { PostgresRelay, relayedBackend } from '../../support/postgres-relay.js';
import { closedPort, getOps, sample, scrape, SwitchableCore } from './ops-requests.js';

const READY = { status: 'ok', checks: { database: 'ok', signing_key: 'ok', core: 'ok' } };
const CORE_DOWN = { status: 'ok', checks: { database: 'ok', signing_key: 'ok', core: 'failed' } };
const API_KEY = 'ops-test-institution-key';

for (const backend of BACKENDS) {
  describe(`health and readiness (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let server: RunningSimulatorServer;
    const simulator = new CoreSimulator();
    const inProcess = new InProcessCoreConnector(simulator);
    const core = new SwitchableCore(inProcess);
    const opened: HttpCoreConnector[] = [];
    const http = (baseUrl: string, apiKey?: string) => {
      const connector = new HttpCoreConnector({ baseUrl, timeoutMs: 1000, ...(apiKey ? { apiKey } : {}) });
      opened.push(connector);
      return connector;
    };
    before(async () => {
      server = await startSimulatorServer({ simulator, port: 0, apiKey: API_KEY });
      h = await createHarness(backend, { core });
    });
    after(async () => {
      await h?.close();
      for (const connector of opened) await connector.close();
      await server?.close();
    });

    it('GET /healthz answers 200 {"status":"ok"} without credentials, not cached', async () => {
      const response = await getOps(h, '/healthz');
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { status: 'ok' });
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.match(String(response.headers['x-request-id']), /./);
    });

    it('GET /readyz answers 200 with every check ok (simulator in process)', async () => {
      core.current = inProcess;
      const response = await getOps(h, '/readyz');
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), READY);
      assert.equal(response.headers['cache-control'], 'no-store');
    });

    it('GET /readyz asks the core over HTTP (GET /v1/health of the simulator, with the API key)', async () => {
      core.current = http(server.url, API_KEY);
      const response = await getOps(h, '/readyz', { 'x-request-id': 'readiness-probe-1' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), READY);
      const answer = await fetch(`${server.url}/v1/health`, {
        headers: { 'x-api-key': API_KEY, 'x-request-id': 'direct' },
      });
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), { status: 'ok' });
      assert.equal(answer.headers.get('x-request-id'), 'direct');
    });

    it('GET /readyz stays 200 naming the core failed when nothing listens at CORE_URL, quickly, and says so in a metric', async () => {
      core.current = http(`http://127.0.0.1:${await closedPort()}`);
      const started = performance.now();
      const response = await getOps(h, '/readyz');
      assert.ok(performance.now() - started < 1500, 'no long wait');
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), CORE_DOWN);
      const metrics = await scrape(h);
      assert.equal(sample(metrics, 'coregate_dependency_up', { check: 'core' }), 0);
      assert.equal(sample(metrics, 'coregate_dependency_up', { check: 'database' }), 1);
      assert.doesNotMatch(response.body, /ECONNREFUSED|127\.0\.0\.1/, 'why is logged, not sent');
      assert.equal(response.headers['cache-control'], 'no-store');
      // Liveness does not depend on anything else.
      assert.equal((await getOps(h, '/healthz')).statusCode, 200);
    });

    it('GET /readyz stays 200 naming the core failed when the core refuses coregate’s API key', async () => {
      core.current = http(server.url, 'not-the-key');
      const response = await getOps(h, '/readyz');
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), CORE_DOWN);
    });

    it('GET /readyz sends GET /v1/health with the request id; any answer below 500 is reachable (a core without it), a 5xx is not', async () => {
      const { createServer } = await import('node:http');
      let status = 404;
      const seen: { path: string | undefined; requestId: unknown }[] = [];
      const bare = createServer((req, res) => {
        seen.push({ path: req.url, requestId: req.headers['x-request-id'] });
        res.writeHead(status).end();
      });
      await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
      try {
        core.current = http(`http://127.0.0.1:${(bare.address() as { port: number }).port}`);
        assert.equal((await getOps(h, '/readyz', { 'x-request-id': 'readiness-probe-2' })).statusCode, 200);
        assert.deepEqual(seen, [{ path: '/v1/health', requestId: 'readiness-probe-2' }]);
        status = 503;
        const down = await getOps(h, '/readyz');
        assert.equal(down.statusCode, 200);
        assert.deepEqual(down.json(), CORE_DOWN);
      } finally {
        bare.closeAllConnections();
        await new Promise<void>((resolve) => bare.close(() => resolve()));
      }
    });

    if (backend.name === 'pglite') {
      // Last: the database stays closed.
      it('GET /readyz answers 503 naming the database once the embedded database is closed', async () => {
        core.current = inProcess;
        await h.services.database.close();
        const response = await getOps(h, '/readyz');
        assert.equal(response.statusCode, 503, response.body);
        assert.deepEqual(response.json(), {
          status: 'unavailable',
          checks: { database: 'failed', signing_key: 'ok', core: 'ok' },
        });
        assert.equal((await getOps(h, '/healthz')).statusCode, 200, 'still alive');
      });
    }
  });
}

describe('readiness while PostgreSQL is unreachable (postgres)', { skip: postgresSkip }, () => {
  const relay = new PostgresRelay();
  let drop: () => Promise<void>;
  let h: Harness;
  before(async () => {
    await relay.open();
    const relayed = await relayedBackend(relay, 2);
    drop = relayed.drop;
    h = await createHarness(relayed.backend);
  });
  after(async () => {
    await h?.close();
    await relay.cut().catch(() => {});
    await drop?.();
  });

  it('answers 503 naming the database, then 200 once it is back', async () => {
    assert.equal((await getOps(h, '/readyz')).statusCode, 200);
    await relay.cut();
    const response = await getOps(h, '/readyz');
    assert.equal(response.statusCode, 503, response.body);
    assert.deepEqual(response.json(), {
      status: 'unavailable',
      checks: { database: 'failed', signing_key: 'ok', core: 'ok' },
    });
    assert.equal((await getOps(h, '/healthz')).statusCode, 200);
    await relay.open();
    const back = await getOps(h, '/readyz');
    assert.equal(back.statusCode, 200, back.body);
    assert.deepEqual(back.json(), READY);
  });
});
