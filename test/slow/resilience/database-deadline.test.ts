/**
 * One database deadline per request (docs/operations.md#one-database-deadline-per-request): with
 * the database not answering, every endpoint answers within 1.6 × COREGATE_DB_TIMEOUT_MS — 503
 * with Retry-After where it needed the database, or its answer where its caches sufficed — with
 * warm caches, with cold ones, with only the institutions to read again, and in a renewal; not one
 * timeout per step (the client record, the institutions, the association, the audit row). Rows the
 * requests could not wait for are logged at error level, never dropped silently. Once the database
 * answers again every endpoint succeeds.
 *
 * PostgreSQL is reached through a TCP relay that swallows all traffic (a network partition);
 * PGlite is held by a transaction that does not end (its single connection busy).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { pgliteBackend, type Backend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { postgresSkip } from '../../support/postgres.js';
import { PostgresRelay, relayedBackend } from '../../support/postgres-relay.js';
import { assertSuccess, formB, getAccounts, postSession } from '../../http/gateway/gateway-requests.js';
import { buildApp } from '../../../src/http/app.js';
import { appDepsFrom } from '../../../src/server/app-deps.js';
import { postRevoke, postToken, type TestClient } from '../../http/oauth/oauth-requests.js';

const TIMEOUT_MS = 500;
/**
 * The harness's own deadline, for the setup's requests (clients, tokens, registrations): so
 * generous that a loaded machine never has them meet it. The requests measured go through
 * an app on the same services with TIMEOUT_MS (`measuredWith`).
 */
const SETUP_TIMEOUT_MS = 60_000;
/** The bound every answer keeps while the database does not answer. */
const LIMIT_MS = 1.6 * TIMEOUT_MS;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly ms: number;
  readonly requestId: string;
  readonly body: string;
}

type Endpoint =
  | 'token'
  | 'refresh'
  | 'accounts'
  | 'read'
  | 'register'
  | 'deregister'
  | 'revoke access token'
  | 'revoke refresh token';

/** What every endpoint is called with: one platform customer per endpoint, so that a failed step of one leaves the others' caches alone. */
interface Fixture {
  readonly client: TestClient;
  readonly token: string;
  /** An access token of the client for the revocation endpoint only. */
  readonly revocable: string;
  readonly refreshToken: string;
}

async function timed(request: () => Promise<LightMyRequestResponse>): Promise<Answer> {
  const started = performance.now();
  const response = await request();
  const retryAfter = response.headers['retry-after'];
  return {
    status: response.statusCode,
    retryAfter: retryAfter === undefined ? undefined : String(retryAfter),
    ms: performance.now() - started,
    requestId: String(response.headers['x-request-id']),
    body: response.body,
  };
}

function endpoints(h: Harness, f: Fixture): Record<Endpoint, () => Promise<LightMyRequestResponse>> {
  const bearer = { authorization: `Bearer ${f.token}` };
  return {
    token: () => postToken(h, { client: f.client, body: { grant_type: 'client_credentials' } }),
    refresh: () =>
      postToken(h, { client: f.client, body: { grant_type: 'refresh_token', refresh_token: f.refreshToken } }),
    accounts: () => getAccounts(h, { token: f.token }, 'dl-accounts'),
    read: () => h.app.inject({ method: 'GET', url: '/core/sessions?customerId=dl-read', headers: bearer }),
    register: () => postSession(h, { token: f.token }, formB('dl-register', 'C-1002')),
    deregister: () =>
      h.app.inject({ method: 'DELETE', url: '/core/sessions?customerId=dl-deregister', headers: bearer }),
    'revoke access token': () => postRevoke(h, { client: f.client, body: { token: f.revocable } }),
    'revoke refresh token': () => postRevoke(h, { client: f.client, body: { token: f.refreshToken } }),
  };
}

/** The harness's services behind a second app, whose requests have TIMEOUT_MS for the database. */
async function measuredWith(h: Harness): Promise<Harness> {
  const app = await buildApp({ ...appDepsFrom(h.services), databaseTimeoutMs: TIMEOUT_MS });
  await app.ready();
  return { ...h, app };
}

/** A client with refresh tokens, its tokens, and one registered customer per gateway endpoint. */
async function fixture(h: Harness): Promise<Fixture> {
  const client = await h.client({ grants: ['refresh_token'] });
  const token = await h.token(client);
  const revocable = await h.token(client);
  const issued = await postToken(h, { client, body: { grant_type: 'client_credentials' } });
  assert.equal(issued.statusCode, 200, issued.body);
  for (const customerId of ['dl-accounts', 'dl-read', 'dl-register', 'dl-deregister']) {
    assertSuccess(await postSession(h, { token }, formB(customerId, 'C-1002')));
  }
  return { client, token, revocable, refreshToken: issued.json<{ refresh_token: string }>().refresh_token };
}

/** Calls each endpoint in turn (after `prepare`), each answer checked against the bound and the status expected. */
async function expectBounded(
  label: string,
  calls: Record<Endpoint, () => Promise<LightMyRequestResponse>>,
  expected: Partial<Record<Endpoint, 200 | 503>>,
  prepare: () => void = () => {},
): Promise<Answer[]> {
  const answers: Answer[] = [];
  const lines: string[] = [];
  for (const [endpoint, status] of Object.entries(expected) as Array<[Endpoint, 200 | 503]>) {
    prepare();
    const answer = await timed(calls[endpoint]);
    answers.push(answer);
    lines.push(`${label}: ${endpoint} ${answer.status} in ${Math.round(answer.ms)} ms`);
    assert.equal(answer.status, status, `${label}: ${endpoint}: ${answer.body}`);
    if (status === 503) assert.equal(answer.retryAfter, '5', `${label}: ${endpoint}: Retry-After`);
    assert.ok(
      answer.ms < LIMIT_MS,
      `${label}: ${endpoint} answered in ${Math.round(answer.ms)} ms, over 1.6 × ${TIMEOUT_MS} ms`,
    );
  }
  console.log(lines.join('\n'));
  return answers;
}

/** Once the database answers again, every endpoint succeeds (the refresh token unspent: nothing was half done). */
async function expectRecovered(h: Harness, f: Fixture): Promise<void> {
  const calls = endpoints(h, f);
  const deadline = performance.now() + 10_000;
  let back = await calls.accounts();
  while (back.statusCode !== 200 && performance.now() < deadline) {
    await sleep(100);
    back = await calls.accounts();
  }
  assertSuccess(back, 'accounts once the database answers again');
  for (const endpoint of [
    'token',
    'refresh',
    'read',
    'register',
    'deregister',
    'revoke access token',
    'revoke refresh token',
  ] as const) {
    const response = await calls[endpoint]();
    assert.equal(response.statusCode, 200, `${endpoint} once the database answers again: ${response.body}`);
  }
}

/** Every request the database failed still has its audit row written, or logged at error level with the event. */
async function expectAuditRowsLogged(
  lines: ReadonlyArray<Record<string, unknown>>,
  answers: readonly Answer[],
): Promise<void> {
  const logged = () =>
    new Set(
      lines
        .filter((line) => line['msg'] === 'audit log write failed')
        .map((line) => (line['audit'] as { requestId?: string }).requestId),
    );
  const until = performance.now() + 5000;
  while (!answers.every((answer) => logged().has(answer.requestId)) && performance.now() < until) await sleep(100);
  for (const answer of answers)
    assert.ok(
      logged().has(answer.requestId),
      `the audit row of request ${answer.requestId} was neither written nor logged`,
    );
}

describe('PostgreSQL partitioned: one database deadline per request (postgres)', { skip: postgresSkip }, () => {
  const relay = new PostgresRelay();
  const lines: Array<Record<string, unknown>> = [];
  let drop: () => Promise<void>;
  let h: Harness;
  /** `h` with TIMEOUT_MS per request, for every request after the setup. */
  let m: Harness;
  let f: Fixture;

  before(async () => {
    await relay.open();
    const relayed = await relayedBackend(relay, 4, { timeoutMs: TIMEOUT_MS });
    drop = relayed.drop;
    h = await createHarness(relayed.backend, {
      logger: pino(
        { level: 'warn' },
        { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
      ),
      // Access tokens outlive the clock moves below; the core sessions do not (900 s).
      env: { COREGATE_DB_TIMEOUT_MS: String(SETUP_TIMEOUT_MS), COREGATE_ACCESS_TOKEN_TTL_SECONDS: '86400' },
    });
    f = await fixture(h);
    m = await measuredWith(h);
  });
  after(async () => {
    relay.restore();
    await m?.app.close();
    await h?.close();
    await relay.cut();
    await drop?.();
  });

  it('answers every endpoint within 1.6 × the timeout, warm caches, only institutions to read, cold caches, a renewal; then recovers', async () => {
    const calls = endpoints(m, f);
    // Warm: every cache read just now. The reads find what they need in memory (200, their audit
    // row not waited for longer than the deadline); the writes need the database (503).
    for (const endpoint of ['accounts', 'read'] as const) assert.equal((await calls[endpoint]()).statusCode, 200);
    relay.blackhole();
    const warm = await expectBounded('warm', calls, {
      accounts: 200,
      read: 200,
      token: 503,
      refresh: 503,
      register: 503,
      deregister: 503,
      'revoke access token': 503,
      'revoke refresh token': 503,
    });
    // The institutions to read again (as after a change announced), the rest cached: the failed
    // read of the institutions used the deadline, the association comes from the cache.
    await expectBounded(
      'institutions to read',
      calls,
      { accounts: 200, read: 200, register: 503, deregister: 503, token: 503, 'revoke refresh token': 503 },
      () => h.services.institutions.forgetAll(),
    );
    // The core rejects the session: the renewal's lease is a database write.
    await expectBounded('renewal', calls, { accounts: 503 }, () => h.services.simulator!.expireAll());
    // Cold: every cache expired (clients, keys, institutions, associations).
    await expectBounded(
      'cold',
      calls,
      {
        token: 503,
        refresh: 503,
        accounts: 503,
        read: 503,
        register: 503,
        deregister: 503,
        'revoke access token': 503,
        'revoke refresh token': 503,
      },
      () => h.clock.advance(120),
    );
    // The two reads answered 200 had their rows to write into a database that did not answer.
    await expectAuditRowsLogged(lines, warm.slice(0, 2));

    relay.restore();
    await expectRecovered(m, f);
  });
});

describe('PGlite held by a transaction: one database deadline per request (pglite)', () => {
  const backend: Backend = pgliteBackend;
  let h: Harness;
  /** `h` with TIMEOUT_MS per request, for every request after the setup. */
  let m: Harness;
  let f: Fixture;

  before(async () => {
    h = await createHarness(backend, {
      env: { COREGATE_DB_TIMEOUT_MS: String(SETUP_TIMEOUT_MS), COREGATE_ACCESS_TOKEN_TTL_SECONDS: '86400' },
    });
    f = await fixture(h);
    m = await measuredWith(h);
  });
  after(async () => {
    await m?.app.close();
    await h?.close();
  });

  it('answers every endpoint within 1.6 × the timeout while its one connection is held, transactions included; then recovers', async () => {
    const calls = endpoints(m, f);
    for (const endpoint of ['accounts', 'read'] as const) assert.equal((await calls[endpoint]()).statusCode, 200);
    let release!: () => void;
    const holding = h.services.database.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    // The deregistration and the refresh grant wait for a transaction of their own: bounded too
    // (and never run once their caller gave up). A plain statement whose caller gave up still runs
    // when its turn comes (PGlite cannot take back a queued statement): the revocation of the
    // refresh token is left out, or it would spend the token before the recovery below.
    await expectBounded('warm', calls, {
      accounts: 200,
      read: 200,
      token: 503,
      refresh: 503,
      register: 503,
      deregister: 503,
      'revoke access token': 503,
    });
    await expectBounded(
      'cold',
      calls,
      { token: 503, refresh: 503, accounts: 503, read: 503, register: 503, deregister: 503 },
      () => h.clock.advance(120),
    );
    release();
    await holding;
    await expectRecovered(m, f);
  });
});
