/**
 * The core circuit breaker through HTTP (docs/behaviour.md#upstream-failures: "502, 503 once a
 * circuit breaker is open"): once more than half of at least COREGATE_CORE_BREAKER_FAILURES
 * core calls in the window failed, registration and accounts answer 503 Unavailable with
 * Retry-After at once, without calling the core; after the cool-down one probe goes through — a
 * failing probe opens the circuit again, a good one closes it and the service answers 200
 * again. The breaker (cockatiel) reads `Date.now()`: the tests move it with node:test's
 * `mock.timers` together with the harness's clock.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { pgliteBackend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertError,
  assertSuccess,
  BAD_GATEWAY,
  BOB,
  FollowingClock,
  formA,
  formB,
  getAccounts,
  postSession,
  RecordingCore,
  uniqueId,
  type ErrorKind,
} from '../gateway/gateway-requests.js';
import { sample, scrape } from './ops-requests.js';

const FAILURES = 3;
const COOLDOWN_SECONDS = 20;
const TIMEOUT_MS = 250;
const UNAVAILABLE: ErrorKind = { status: 503, name: 'Unavailable', className: 'unavailable' };

// It waits out real core timeouts and cooldowns: 14 s pinned to one core with another run on the other.
describe('core circuit breaker (pglite)', { timeout: 60_000 }, () => {
  let h: Harness;
  let token: string;
  let registered: string;
  const clock = new FollowingClock();
  const simulator = new CoreSimulator({ clock });
  const core = new RecordingCore(new InProcessCoreConnector(simulator, { timeoutMs: TIMEOUT_MS }));
  const coreCalls = () => core.startSessionCalls.length + core.listAccountsCalls.length;

  /** Moves the harness's clock and the breaker's (`Date`) together. */
  function advance(seconds: number): void {
    h.clock.advance(seconds);
    mock.timers.tick(seconds * 1000);
  }

  /** Fails accounts calls until the circuit opens; each failure answers 502. How many it took. */
  async function failUntilOpen(
    request = () => getAccounts(h, { token }, registered),
    most = FAILURES,
  ): Promise<number> {
    let failures = 0;
    while (h.services.coreBreaker!.state === 'closed') {
      assert.ok(failures < most, `open within ${most} failing calls`);
      assertError(await request(), BAD_GATEWAY, `failure ${failures + 1}: still 502`);
      failures += 1;
    }
    return failures;
  }

  /**
   * Leaves the circuit closed with a fresh window (only a probe's success in it), so
   * each test starts alike: the rate breaker remembers the calls of the tests before.
   */
  async function freshCircuit(): Promise<void> {
    if (h.services.coreBreaker!.state === 'closed') {
      simulator.setFaults({ errorRate: 1, errorStatus: 500 });
      await failUntilOpen(undefined, 1000);
    }
    simulator.setFaults({});
    advance(COOLDOWN_SECONDS);
    assertSuccess(await getAccounts(h, { token }, registered));
    assert.equal(h.services.coreBreaker?.state, 'closed');
  }

  before(async () => {
    h = await createHarness(pgliteBackend, {
      core,
      env: {
        COREGATE_CORE_BREAKER_FAILURES: String(FAILURES),
        // Each failing call counted once: no retries of accounts calls.
        COREGATE_CORE_RETRIES: '0',
        COREGATE_CORE_BREAKER_COOLDOWN_SECONDS: String(COOLDOWN_SECONDS),
        COREGATE_CORE_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
    clock.target = h.clock;
    const client = await h.client({ platform: 'breaker' });
    token = await h.token(client);
    registered = uniqueId('breaker');
    assertSuccess(await postSession(h, { token }, formA(registered, BOB)));
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    await freshCircuit();
  });
  // Each test leaves the core healthy and the circuit closed, with a fresh window.
  afterEach(() => freshCircuit());
  after(async () => {
    mock.timers.reset();
    await h?.close();
  });

  function assertOpen(response: LightMyRequestResponse, retryAfter: number, why: string): void {
    const body = assertError(response, UNAVAILABLE, why);
    // Only the reason code and the request id, nothing about the cause.
    assert.deepEqual(
      { ...body.data, requestId: typeof body.data['requestId'] },
      { reason: 'unavailable', requestId: 'string' },
      `${why}: nothing about the cause`,
    );
    assert.equal(response.headers['retry-after'], String(retryAfter), `${why}: Retry-After`);
    assert.doesNotMatch(response.body, /circuit|core_failure|answered 5\d\d/, `${why}: the cause is logged, not sent`);
  }

  it(`answers 503 with Retry-After at once, without calling the core, within ${FAILURES} failures; a probe after the cool-down; 200 after recovery`, async () => {
    simulator.setFaults({ errorRate: 1, errorStatus: 500 });
    await failUntilOpen();

    const calls = coreCalls();
    assertOpen(await getAccounts(h, { token }, registered), COOLDOWN_SECONDS, 'accounts');
    assertOpen(await postSession(h, { token }, formA(uniqueId('refused'), BOB)), COOLDOWN_SECONDS, 'registration');
    assertOpen(
      await postSession(h, { token }, formB(uniqueId('refused'), BOB.customerKey)),
      COOLDOWN_SECONDS,
      'registration by key',
    );
    advance(COOLDOWN_SECONDS / 2);
    assertOpen(await getAccounts(h, { token }, registered), COOLDOWN_SECONDS / 2, 'halfway through the cool-down');
    assert.equal(coreCalls(), calls, 'the core was not called while the circuit was open');

    // The core is back: after the cool-down the next call is the probe, and it closes the circuit.
    simulator.setFaults({});
    advance(COOLDOWN_SECONDS / 2);
    assertSuccess(await getAccounts(h, { token }, registered), 'the probe');
    assert.equal(coreCalls(), calls + 1, 'one probe call');
    assert.equal(h.services.coreBreaker!.state, 'closed');
    const customerId = uniqueId('recovered');
    assertSuccess(await postSession(h, { token }, formA(customerId, BOB)), 'registration after recovery');
    assertSuccess(await getAccounts(h, { token }, customerId), 'accounts after recovery');
  });

  it('opens again for a whole cool-down when the probe fails', async () => {
    simulator.setFaults({ errorRate: 1, errorStatus: 503 });
    await failUntilOpen(() => postSession(h, { token }, formB(uniqueId('down'), BOB.customerKey)));
    advance(COOLDOWN_SECONDS);
    const calls = coreCalls();
    assertError(await getAccounts(h, { token }, registered), BAD_GATEWAY, 'the probe reaches the failing core');
    assert.equal(coreCalls(), calls + 1);
    assert.equal(h.services.coreBreaker!.state, 'open');
    assertOpen(await getAccounts(h, { token }, registered), COOLDOWN_SECONDS, 'after the failed probe');
    assert.equal(coreCalls(), calls + 1);
  });

  it('stops waiting on timeouts: once open, a slow core costs nothing', async () => {
    // Answers only long after the deadline: each failing call waits for the deadline, never for the core.
    simulator.setFaults({ latencyMs: 60_000 });
    await failUntilOpen(async () => {
      const started = performance.now();
      const response = await getAccounts(h, { token }, registered);
      assert.ok(performance.now() - started >= TIMEOUT_MS * 0.9, 'waited for the timeout');
      return response;
    });
    // Costs nothing: the answer comes without a call to the core, so without its deadline (a
    // count, not a stopwatch, which a loaded machine would move).
    const calls = coreCalls();
    assertOpen(await getAccounts(h, { token }, registered), COOLDOWN_SECONDS, 'slow core');
    assert.equal(coreCalls(), calls, 'the core was not called');
  });

  it('does not count answers of a working core: unknown customers and rejected sessions', async () => {
    const stranger = { ...BOB, accountNumber: '99999999' };
    for (let i = 0; i < FAILURES * 2; i += 1) {
      assert.equal((await postSession(h, { token }, formA(uniqueId('stranger'), stranger))).statusCode, 401);
    }
    for (let i = 0; i < FAILURES * 2; i += 1) {
      simulator.expireAll(); // rejected, renewed, retried
      assertSuccess(await getAccounts(h, { token }, registered));
    }
    assert.equal(h.services.coreBreaker!.state, 'closed');
  });

  it('reports its state, transitions and refusals in /metrics', async () => {
    const before = await scrape(h);
    simulator.setFaults({ errorRate: 1, errorStatus: 500 });
    const failures = await failUntilOpen();
    await getAccounts(h, { token }, registered);
    await postSession(h, { token }, formB(uniqueId('refused'), BOB.customerKey));
    const open = await scrape(h);
    assert.equal(sample(open, 'coregate_core_circuit_state', { institution: 'default', state: 'open' }), 1);
    assert.equal(sample(open, 'coregate_core_circuit_state', { institution: 'default', state: 'closed' }), 0);
    const delta = (now: Map<string, number>, name: string, labels: Record<string, string>) =>
      sample(now, name, labels) - sample(before, name, labels);
    assert.equal(delta(open, 'coregate_core_circuit_transitions_total', { institution: 'default', state: 'open' }), 1);
    assert.equal(
      delta(open, 'coregate_core_circuit_rejected_total', { institution: 'default', operation: 'listAccounts' }),
      1,
    );
    assert.equal(
      delta(open, 'coregate_core_circuit_rejected_total', { institution: 'default', operation: 'startSession' }),
      1,
    );
    assert.equal(
      delta(open, 'coregate_core_requests_total', {
        institution: 'default',
        operation: 'listAccounts',
        outcome: 'unavailable',
      }),
      failures,
      'refused calls are not core calls',
    );
    simulator.setFaults({});
    advance(COOLDOWN_SECONDS);
    assertSuccess(await getAccounts(h, { token }, registered));
    const closed = await scrape(h);
    assert.equal(sample(closed, 'coregate_core_circuit_state', { institution: 'default', state: 'closed' }), 1);
    assert.equal(
      delta(closed, 'coregate_core_circuit_transitions_total', { institution: 'default', state: 'half_open' }),
      1,
    );
    assert.equal(
      delta(closed, 'coregate_core_circuit_transitions_total', { institution: 'default', state: 'closed' }),
      1,
    );
  });

  it('leaves the token endpoint alone (it needs no core)', async () => {
    simulator.setFaults({ errorRate: 1, errorStatus: 500 });
    await failUntilOpen();
    const client = await h.client({ platform: 'breaker-token' });
    assert.ok(await h.token(client));
  });
});
