/**
 * `GET /metrics` in the Prometheus text format: the counters move with the
 * requests that should move them — requests by route and status with latency,
 * tokens issued and denied by OAuth error code, core calls by operation and
 * outcome, renewals, single-flight waits in one process and across two — the pool
 * gauges appear on PostgreSQL, the breaker state is reported, and each app has a
 * registry of its own. Operations endpoints are not counted as traffic.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { BACKENDS, pgliteBackend, type Backend } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import {
  assertError,
  assertSuccess,
  BAD_GATEWAY,
  BOB,
  FollowingClock,
  formA,
  getAccounts,
  postSession,
  uniqueId,
} from '../gateway/gateway-requests.js';
import { getOps, parseMetrics, sample, scrape } from './ops-requests.js';

const TTL_SECONDS = 300;

/** Every metric coregate defines (docs/operations.md), with its type. */
const DEFINED = {
  coregate_http_requests_total: 'counter',
  coregate_http_request_duration_seconds: 'histogram',
  coregate_oauth_tokens_issued_total: 'counter',
  coregate_oauth_tokens_denied_total: 'counter',
  coregate_access_denied_total: 'counter',
  coregate_core_requests_total: 'counter',
  coregate_core_request_duration_seconds: 'histogram',
  coregate_core_session_renewals_total: 'counter',
  coregate_core_session_renewal_waits_total: 'counter',
  coregate_core_circuit_state: 'gauge',
  coregate_core_circuit_transitions_total: 'counter',
  coregate_core_circuit_rejected_total: 'counter',
};
const POOL = [
  'coregate_db_pool_connections',
  'coregate_db_pool_idle_connections',
  'coregate_db_pool_waiting_requests',
  'coregate_db_pool_max_connections',
];

function tokenRequest(h: Harness, client: { id: string; secret: string }, body: string) {
  return h.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { authorization: basic(client.id, client.secret), 'content-type': 'application/x-www-form-urlencoded' },
    payload: body,
  });
}

for (const backend of BACKENDS) {
  describe(`GET /metrics (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    let client: { id: string; secret: string };
    before(async () => {
      // Each failing core call counted once: no retries of accounts reads here.
      h = await createHarness(backend, {
        env: {
          COREGATE_SIM_SESSION_TTL_SECONDS: String(TTL_SECONDS),
          COREGATE_CORE_TIMEOUT_MS: '300',
          COREGATE_CORE_RETRIES: '0',
        },
      });
      client = await h.client({ platform: 'metrics' });
      token = await h.token(client);
    });
    after(() => h?.close());

    it('answers the Prometheus text format, unauthenticated, with every metric described', async () => {
      const response = await getOps(h, '/metrics');
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      assert.equal(response.headers['cache-control'], 'no-store');
      for (const [name, type] of Object.entries(DEFINED)) {
        assert.match(response.body, new RegExp(`^# HELP ${name} \\S`, 'm'), `${name} has help`);
        assert.match(response.body, new RegExp(`^# TYPE ${name} ${type}$`, 'm'), `${name} is a ${type}`);
      }
      for (const name of POOL) {
        assert.equal(
          response.body.includes(`# TYPE ${name} gauge`),
          backend.name === 'postgres',
          `${name} only with a pool`,
        );
      }
      const samples = parseMetrics(response.body);
      assert.equal(sample(samples, 'coregate_core_circuit_state', { institution: 'default', state: 'closed' }), 1);
      assert.equal(sample(samples, 'coregate_core_circuit_state', { institution: 'default', state: 'open' }), 0);
      if (backend.name === 'postgres') {
        assert.equal(sample(samples, 'coregate_db_pool_max_connections'), 10);
        assert.ok(sample(samples, 'coregate_db_pool_connections') >= 1, 'the pool has connections');
        assert.equal(sample(samples, 'coregate_db_pool_waiting_requests'), 0);
      }
    });

    it('counts tokens issued, and denied by the OAuth error code', async () => {
      const before = await scrape(h);
      assert.equal((await tokenRequest(h, client, 'grant_type=client_credentials')).statusCode, 200);
      assert.equal((await tokenRequest(h, client, 'grant_type=password')).statusCode, 400);
      assert.equal(
        (await tokenRequest(h, { id: client.id, secret: 'wrong' }, 'grant_type=client_credentials')).statusCode,
        400,
      );
      assert.equal(
        (await tokenRequest(h, { id: client.id, secret: 'wrong' }, 'grant_type=client_credentials')).statusCode,
        400,
      );
      const now = await scrape(h);
      const delta = (name: string, labels: Record<string, string> = {}) =>
        sample(now, name, labels) - sample(before, name, labels);
      assert.equal(delta('coregate_oauth_tokens_issued_total'), 1);
      assert.equal(delta('coregate_oauth_tokens_denied_total', { reason: 'unsupported_grant_type' }), 1);
      assert.equal(delta('coregate_oauth_tokens_denied_total', { reason: 'invalid_client' }), 2);
      assert.equal(delta('coregate_oauth_tokens_denied_total', { reason: 'invalid_grant' }), 0);
      assert.equal(delta('coregate_http_requests_total', { method: 'POST', route: '/oauth2/token', status: '200' }), 1);
      assert.equal(delta('coregate_http_requests_total', { method: 'POST', route: '/oauth2/token', status: '400' }), 3);
    });

    it('counts requests by route pattern and status with their latency, never the raw URL, and not the operations endpoints', async () => {
      const before = await scrape(h);
      const customerId = uniqueId('counted');
      assertSuccess(await postSession(h, { token }, formA(customerId, BOB)));
      assertSuccess(await getAccounts(h, { token }, customerId));
      assertSuccess(await getAccounts(h, { token }, customerId));
      assert.equal((await getAccounts(h, {}, customerId)).statusCode, 401);
      assert.equal((await h.app.inject({ method: 'GET', url: `/no/such/${customerId}` })).statusCode, 404);
      await getOps(h, '/healthz');
      await getOps(h, '/readyz');
      const response = await getOps(h, '/metrics');
      const now = parseMetrics(response.body);
      const delta = (name: string, labels: Record<string, string>) =>
        sample(now, name, labels) - sample(before, name, labels);
      assert.equal(
        delta('coregate_http_requests_total', { method: 'POST', route: '/core/sessions', status: '200' }),
        1,
      );
      assert.equal(delta('coregate_http_requests_total', { method: 'GET', route: '/core/accounts', status: '200' }), 2);
      assert.equal(delta('coregate_http_requests_total', { method: 'GET', route: '/core/accounts', status: '401' }), 1);
      assert.equal(delta('coregate_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
      assert.equal(
        delta('coregate_http_request_duration_seconds_count', {
          method: 'GET',
          route: '/core/accounts',
          status: '200',
        }),
        2,
      );
      assert.ok(
        delta('coregate_http_request_duration_seconds_sum', { method: 'GET', route: '/core/accounts', status: '200' }) >
          0,
      );
      assert.equal(
        delta('coregate_http_request_duration_seconds_bucket', {
          method: 'GET',
          route: '/core/accounts',
          status: '200',
          le: '+Inf',
        }),
        2,
      );
      // The samples, not the HELP texts (which may name an endpoint in words).
      const sampleLines = response.body
        .split('\n')
        .filter((line) => !line.startsWith('#'))
        .join('\n');
      assert.doesNotMatch(
        sampleLines,
        /customerId=|\/no\/such|\/healthz|\/readyz|route="\/metrics"/,
        'no raw URLs, no operations endpoints',
      );
    });

    it('counts core calls by operation and outcome with their duration, and renewals', async () => {
      const before = await scrape(h);
      const customerId = uniqueId('core-calls');
      assertSuccess(await postSession(h, { token }, formA(customerId, BOB)));
      assertSuccess(await getAccounts(h, { token }, customerId));
      h.clock.advance(TTL_SECONDS + 1);
      assertSuccess(await getAccounts(h, { token }, customerId)); // renews first
      h.services.simulator!.expireAll();
      assertSuccess(await getAccounts(h, { token }, customerId)); // rejected, renewed, retried
      assert.equal(
        (await postSession(h, { token }, formA(uniqueId('stranger'), { ...BOB, accountNumber: '99999999' })))
          .statusCode,
        401,
      );
      h.services.simulator!.setFaults({ errorRate: 1, errorStatus: 500 });
      assertError(await getAccounts(h, { token }, customerId), BAD_GATEWAY);
      h.services.simulator!.setFaults({ latencyMs: 2000 });
      assertError(await getAccounts(h, { token }, customerId), BAD_GATEWAY);
      h.services.simulator!.setFaults({});
      const now = await scrape(h);
      const delta = (name: string, labels: Record<string, string> = {}) =>
        sample(now, name, labels) - sample(before, name, labels);
      assert.equal(
        delta('coregate_core_requests_total', { institution: 'default', operation: 'startSession', outcome: 'ok' }),
        3,
        'registration and two renewals',
      );
      assert.equal(
        delta('coregate_core_requests_total', {
          institution: 'default',
          operation: 'startSession',
          outcome: 'customer_not_recognised',
        }),
        1,
      );
      assert.equal(
        delta('coregate_core_requests_total', { institution: 'default', operation: 'listAccounts', outcome: 'ok' }),
        3,
      );
      assert.equal(
        delta('coregate_core_requests_total', {
          institution: 'default',
          operation: 'listAccounts',
          outcome: 'session_rejected',
        }),
        1,
      );
      assert.equal(
        delta('coregate_core_requests_total', {
          institution: 'default',
          operation: 'listAccounts',
          outcome: 'unavailable',
        }),
        2,
        'a 500 and a timeout',
      );
      assert.equal(
        delta('coregate_core_request_duration_seconds_count', {
          institution: 'default',
          operation: 'listAccounts',
          outcome: 'unavailable',
        }),
        2,
      );
      assert.ok(
        delta('coregate_core_request_duration_seconds_sum', {
          institution: 'default',
          operation: 'listAccounts',
          outcome: 'unavailable',
        }) >= 0.25,
        'the timeout took its time',
      );
      assert.equal(delta('coregate_core_session_renewals_total'), 2);
    });

    it('counts callers that joined a renewal pending in this process', async () => {
      const customerId = uniqueId('joined');
      assertSuccess(await postSession(h, { token }, formA(customerId, BOB)));
      h.clock.advance(TTL_SECONDS + 1);
      const before = await scrape(h);
      const sessions = h.services.simulator!.stats().sessionsStarted;
      // A slower core keeps the renewal pending while the other callers arrive.
      h.services.simulator!.setFaults({ latencyMs: 50 });
      const responses = await Promise.all(Array.from({ length: 10 }, () => getAccounts(h, { token }, customerId)));
      h.services.simulator!.setFaults({});
      responses.forEach((response) => assertSuccess(response));
      assert.equal(h.services.simulator!.stats().sessionsStarted, sessions + 1, 'one renewal');
      const now = await scrape(h);
      const joins =
        sample(now, 'coregate_core_session_renewal_waits_total', { kind: 'in_process' }) -
        sample(before, 'coregate_core_session_renewal_waits_total', { kind: 'in_process' });
      assert.ok(joins >= 1 && joins <= 9, `${joins} callers joined the pending renewal`);
      assert.equal(
        sample(now, 'coregate_core_session_renewals_total') - sample(before, 'coregate_core_session_renewals_total'),
        1,
      );
    });
  });
}

describe('GET /metrics: waits on another process’s renewal lease (two apps, one database)', () => {
  let a: Harness;
  let b: Harness;
  let opened: Awaited<ReturnType<Backend['open']>> | undefined;
  const clock = new FollowingClock();
  const simulator = new CoreSimulator({ clock, sessionTtlSeconds: TTL_SECONDS });
  const core = new InProcessCoreConnector(simulator);
  before(async () => {
    const database = await pgliteBackend.open();
    opened = database;
    // Both "processes" share the database (and so must share the encryption key) and the core.
    const shared: Backend = { ...pgliteBackend, open: async () => ({ ...database, close: async () => {} }) };
    const env = { COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    a = await createHarness(shared, { core, env });
    b = await createHarness(shared, { core, env });
    clock.target = a.clock;
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await opened?.close();
  });

  it('counts one cross-process wait for the app that found the lease taken', async () => {
    const client = await a.client({ platform: 'two-apps' });
    const tokenA = await a.token(client);
    const tokenB = await b.token(client);
    const customerId = uniqueId('leased');
    assertSuccess(await postSession(a, { token: tokenA }, formA(customerId, BOB)));
    a.clock.advance(TTL_SECONDS + 1);
    b.clock.advance(TTL_SECONDS + 1);
    // a's renewal is held at the core (it holds the lease by then) until b has found the lease taken:
    // events, not a head start in milliseconds.
    let reachedCore!: () => void;
    const atCore = new Promise<void>((resolve) => (reachedCore = resolve));
    let releaseCore!: () => void;
    const released = new Promise<void>((resolve) => (releaseCore = resolve));
    const applyFaults = simulator.applyFaults.bind(simulator);
    simulator.applyFaults = async (signal) => {
      reachedCore();
      await released;
      return applyFaults(signal);
    };
    // A latency makes the in-process connector go through applyFaults.
    simulator.setFaults({ latencyMs: 1 });
    try {
      const first = getAccounts(a, { token: tokenA }, customerId);
      await atCore;
      const second = getAccounts(b, { token: tokenB }, customerId);
      while (sample(await scrape(b), 'coregate_core_session_renewal_waits_total', { kind: 'cross_process' }) < 1)
        await new Promise((resolve) => setImmediate(resolve));
      releaseCore();
      assertSuccess(await first);
      assertSuccess(await second);
    } finally {
      releaseCore();
      simulator.applyFaults = applyFaults;
      simulator.setFaults({});
    }
    const metricsA = await scrape(a);
    const metricsB = await scrape(b);
    assert.equal(sample(metricsA, 'coregate_core_session_renewals_total'), 1);
    assert.equal(sample(metricsB, 'coregate_core_session_renewals_total'), 0, 'b used a’s renewal');
    assert.equal(
      sample(metricsB, 'coregate_core_session_renewal_waits_total', { kind: 'cross_process' }),
      1,
      'counted once, however often it looked',
    );
    assert.equal(sample(metricsA, 'coregate_core_session_renewal_waits_total', { kind: 'cross_process' }), 0);
    assert.equal(sample(metricsA, 'coregate_oauth_tokens_issued_total'), 1, 'each app has a registry of its own');
    assert.equal(sample(metricsB, 'coregate_oauth_tokens_issued_total'), 1);
  });
});
