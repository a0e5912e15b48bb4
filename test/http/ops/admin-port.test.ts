/**
 * `COREGATE_ADMIN_PORT`: with it, `/healthz`, `/readyz` and `/metrics` are served
 * only on that port (and nothing else is); without it, on the main port. Real
 * listening servers (`startServer`, PORT=0 and COREGATE_ADMIN_PORT=0), on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { startServer, type RunningServer } from '../../../src/server/main.js';
import { createFreshDatabase, postgresSkip, type FreshDatabase } from '../../support/postgres.js';
import { parseMetrics, sample } from './ops-requests.js';

describe('operations endpoints on COREGATE_ADMIN_PORT (postgres)', { skip: postgresSkip }, () => {
  let fresh: FreshDatabase;
  let dataDir: string;
  const servers: RunningServer[] = [];
  // One key for every server on the database: what one sealed, the next must open.
  const encryptionKey = randomBytes(32).toString('base64');

  async function start(extra: Record<string, string>): Promise<RunningServer> {
    const server = await startServer(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: fresh.url,
        COREGATE_ENCRYPTION_KEY: encryptionKey,
        COREGATE_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        ...extra,
      }),
    );
    servers.push(server);
    return server;
  }

  before(async () => {
    fresh = await createFreshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'coregate-admin-port-'));
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await fresh?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves /healthz, /readyz and /metrics only on the admin port, and nothing else there', async () => {
    const server = await start({ COREGATE_ADMIN_PORT: '0' });
    assert.ok(server.adminUrl, 'the admin URL is known');
    assert.notEqual(server.adminUrl, server.url);
    assert.match(server.adminUrl, /^http:\/\/127\.0\.0\.1:\d+$/);

    const health = await fetch(`${server.adminUrl}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const ready = await fetch(`${server.adminUrl}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ok', checks: { database: 'ok', signing_key: 'ok', core: 'ok' } });

    // Traffic on the main port shows in the admin port's metrics (one registry per process).
    const jwks = await fetch(`${server.url}/.well-known/jwks.json`);
    assert.equal(jwks.status, 200);
    const metrics = await fetch(`${server.adminUrl}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.headers.get('content-type')), /^text\/plain/);
    const text = await metrics.text();
    const samples = parseMetrics(text);
    assert.equal(
      sample(samples, 'coregate_http_requests_total', {
        method: 'GET',
        route: '/.well-known/jwks.json',
        status: '200',
      }),
      1,
    );
    assert.match(text, /^process_cpu_user_seconds_total /m, 'the server adds process metrics');
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    assert.match(text, /^coregate_db_pool_max_connections 10$/m);

    for (const path of ['/healthz', '/readyz', '/metrics']) {
      assert.equal((await fetch(`${server.url}${path}`)).status, 404, `${path} is not on the main port`);
    }
    for (const path of ['/.well-known/jwks.json', '/openapi.json', '/core/accounts?customerId=x']) {
      assert.equal((await fetch(`${server.adminUrl}${path}`)).status, 404, `${path} is not on the admin port`);
    }
  });

  it('serves them on the main port when COREGATE_ADMIN_PORT is unset', async () => {
    const server = await start({});
    assert.equal(server.adminUrl, undefined);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    const metrics = await fetch(`${server.url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^# TYPE coregate_http_requests_total counter$/m);
  });

  it('refuses a bad COREGATE_ADMIN_PORT with one line naming it', () => {
    for (const value of ['http', '-1', '65536']) {
      assert.throws(
        () => loadConfig({ COREGATE_ADMIN_PORT: value }),
        /^ConfigError: invalid configuration: COREGATE_ADMIN_PORT /,
      );
    }
  });
});
