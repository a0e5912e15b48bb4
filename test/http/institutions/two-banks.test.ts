/**
 * Two banks behind one gateway (docs/behaviour.md#institution-isolation): two simulators over
 * HTTP, the `default` institution on CORE_URL and `bank-b` added like the CLI does. Clients of
 * each register and read their own customers, the same customerId lives at both, another
 * institution's customer is the byte-identical 404, the token carries the institution, a
 * disabled institution answers 503 and `invalid_client`, and a fault at one bank leaves the
 * other at its normal latency.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import {
  startSimulatorServer,
  type RunningSimulatorServer,
} from '../../../src/fakes/core-simulator/simulator-server.js';
import { SqlInstitutionStore } from '../../../src/adapters/store/sql-institution-store.js';
import { AesGcmSealer } from '../../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKeys } from '../../../src/adapters/crypto/encryption-keys.js';
import type { AccessTokenClaims } from '../../../src/ports/token-signer.js';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import {
  ADA,
  BOB,
  assertError,
  assertSuccess,
  formA,
  getAccounts,
  NOT_FOUND,
  postSession,
} from '../gateway/gateway-requests.js';

const UNAVAILABLE = { status: 503, name: 'Unavailable', className: 'unavailable' };

async function faults(server: RunningSimulatorServer, body: Record<string, number>): Promise<void> {
  const response = await fetch(`${server.url}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status < 300, true, `faults: ${response.status}`);
}

describe('institutions: two banks behind one gateway', { skip: QUICKEST_BACKEND.skip }, () => {
  let h: Harness;
  let bankA: RunningSimulatorServer;
  let bankB: RunningSimulatorServer;
  let clientA: { id: string; secret: string };
  let clientB: { id: string; secret: string };
  let tokenA: string;
  let tokenB: string;

  before(async () => {
    bankA = await startSimulatorServer({ simulator: new CoreSimulator(), port: 0 });
    bankB = await startSimulatorServer({ simulator: new CoreSimulator(), port: 0, apiKey: 'bank-b-api-key' });
    h = await createHarness(QUICKEST_BACKEND, {
      env: { CORE_URL: bankA.url, COREGATE_CORE_TIMEOUT_MS: '1500', COREGATE_CORE_BREAKER_FAILURES: '0' },
    });
    await h.services.institutionAdmin.add('bank-b', {
      name: 'Bank B',
      coreUrl: bankB.url,
      coreApiKey: 'bank-b-api-key',
      coreTimeoutMs: 1000,
    });
    // One platform with a client at each bank.
    clientA = await h.client({ platform: 'fintech' });
    clientB = await h.client({ platform: 'fintech', institution: 'bank-b' });
    tokenA = await h.token(clientA);
    tokenB = await h.token(clientB);
  });
  after(async () => {
    await h?.close();
    await bankA?.close();
    await bankB?.close();
  });

  it('puts the client’s institution into its access tokens', () => {
    assert.equal(decodeJwt(tokenA)['institution'], 'default');
    assert.equal(decodeJwt(tokenB)['institution'], 'bank-b');
  });

  it('registers the same customerId at both banks, each at its own core, and reads each one’s own accounts', async () => {
    assert.deepEqual(assertSuccess(await postSession(h, { token: tokenA }, formA('shared', ADA))), {
      customerId: 'shared',
      customerKey: ADA.customerKey,
    });
    assert.deepEqual(assertSuccess(await postSession(h, { token: tokenB }, formA('shared', BOB))), {
      customerId: 'shared',
      customerKey: BOB.customerKey,
    });
    const atA = assertSuccess<unknown[]>(await getAccounts(h, { token: tokenA }, 'shared'));
    const atB = assertSuccess<unknown[]>(await getAccounts(h, { token: tokenB }, 'shared'));
    assert.deepEqual(atA, ADA.accounts);
    assert.deepEqual(atB, BOB.accounts);
    assert.equal(bankA.simulator.stats().sessionsStarted, 1);
    assert.equal(bankB.simulator.stats().sessionsStarted, 1);
  });

  it('answers another institution’s customer with the byte-identical 404 of an unknown one', async () => {
    assertSuccess(await postSession(h, { token: tokenA }, formA('only-at-a', ADA)));
    const other = await getAccounts(h, { token: tokenB }, 'only-at-a');
    const unknown = await getAccounts(h, { token: tokenB }, 'never-registered');
    assertError(other, NOT_FOUND);
    // Equal but for each answer's own request id (data.requestId, a UUID of fixed length).
    const withoutRequestId = (body: string) => body.replace(/"requestId":"[^"]*"/, '"requestId":"-"');
    assert.equal(withoutRequestId(other.body), withoutRequestId(unknown.body));
    assert.equal(other.headers['content-length'], unknown.headers['content-length']);
    assert.equal(other.headers['content-type'], unknown.headers['content-type']);
  });

  it('refuses (401 invalid_token) a token whose institution is not its client’s', async () => {
    const claims = decodeJwt(tokenA) as Record<string, unknown>;
    const forged = await h.services.keyring.sign({
      ...(claims as unknown as AccessTokenClaims),
      institution: 'bank-b',
      jti: 'forged-institution',
    });
    const response = await getAccounts(h, { token: forged }, 'shared');
    assert.equal(response.statusCode, 401);
    assert.match(String(response.headers['www-authenticate']), /error="invalid_token"/);
  });

  it('a fault at one bank leaves the other at its normal latency and 200s', async () => {
    await faults(bankB, { latencyMs: 3000 });
    try {
      const slow = getAccounts(h, { token: tokenB }, 'shared');
      const durations: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        assertSuccess(await getAccounts(h, { token: tokenA }, 'shared'));
        durations.push(performance.now() - started);
      }
      assert.ok(
        Math.max(...durations) < 800,
        `bank A stays fast while bank B hangs: ${durations.map(Math.round).join(', ')} ms`,
      );
      const bResponse = await slow;
      assert.equal(bResponse.statusCode, 502, 'bank B times out on its own timeout');
      await faults(bankB, { errorRate: 1 });
      assert.equal((await getAccounts(h, { token: tokenB }, 'shared')).statusCode, 502);
      assertSuccess(await getAccounts(h, { token: tokenA }, 'shared'));
      // A third bank whose core is down altogether (nothing listens): reported, never a 503.
      await h.services.institutionAdmin.add('bank-down', {
        name: 'Down',
        coreUrl: 'http://127.0.0.1:9',
        coreTimeoutMs: 500,
      });
      const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200, 'one bank’s outage never makes the gateway unready');
      assert.deepEqual(ready.json(), {
        status: 'ok',
        checks: { database: 'ok', signing_key: 'ok', core: 'ok', 'core:bank-b': 'ok', 'core:bank-down': 'failed' },
      });
      const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
      assert.match(
        metrics.body,
        /coregate_core_requests_total\{institution="bank-b",operation="listAccounts",outcome="unavailable"\} [1-9]/,
      );
      assert.match(
        metrics.body,
        /coregate_core_requests_total\{institution="default",operation="listAccounts",outcome="ok"\} [1-9]/,
      );
    } finally {
      await faults(bankB, {});
    }
    assertSuccess(await getAccounts(h, { token: tokenB }, 'shared'));
  });

  it('a disabled institution: 503 on /core/* and invalid_client for tokens, at once in this process; enabled again, it works', async () => {
    await h.services.institutionAdmin.setEnabled('bank-b', false);
    assertError(await getAccounts(h, { token: tokenB }, 'shared'), UNAVAILABLE);
    assertError(await postSession(h, { token: tokenB }, formA('new-at-b', BOB)), UNAVAILABLE);
    const token = await h.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: {
        authorization: basic(clientB.id, clientB.secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'grant_type=client_credentials',
    });
    assert.equal(token.statusCode, 400);
    assert.equal(token.json().error, 'invalid_client');
    assertSuccess(await getAccounts(h, { token: tokenA }, 'shared'), 'the other bank is untouched');
    await h.services.institutionAdmin.setEnabled('bank-b', true);
    assertSuccess(await getAccounts(h, { token: tokenB }, 'shared'));
  });

  it('sees a change made by another process within COREGATE_INSTITUTION_CACHE_SECONDS', async () => {
    // Another process's CLI: the same database, nothing said to this process directly.
    const elsewhere = new SqlInstitutionStore(h.services.database, new AesGcmSealer(encryptionKeys(h.services.config)));
    await elsewhere.setEnabled('bank-b', false, h.clock.now());
    // The database announces the change (LISTEN/NOTIFY) and this process may have applied it
    // already; whether or not the notification came, the cache time is the upper bound.
    h.clock.advance(h.services.config.institutionCacheSeconds);
    assertError(await getAccounts(h, { token: tokenB }, 'shared'), UNAVAILABLE);
    await elsewhere.setEnabled('bank-b', true, h.clock.now());
    h.clock.advance(h.services.config.institutionCacheSeconds);
    assertSuccess(await getAccounts(h, { token: tokenB }, 'shared'));
  });
});
