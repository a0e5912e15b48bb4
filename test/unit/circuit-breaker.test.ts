/**
 * The core circuit breaker's state machine (cockatiel's SamplingBreaker, in
 * `adapters/core/guarded-core-connector.ts`), on mocked time: closed → open once more than half of at least N calls in the window failed;
 * open refuses at once with the time left as Retry-After; after the cool-down
 * exactly one probe goes through; its success closes, its failure opens again.
 * Typed answers of the core are not failures. cockatiel reads `Date.now()`, so the
 * tests move time with node:test's `mock.timers` rather than a FakeClock.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { CoreBreaker, GuardedCoreConnector } from '../../src/adapters/core/guarded-core-connector.js';
import type { AccountRecord } from '../../src/domain/account.js';
import {
  CoreCircuitOpen,
  CoreProtocolError,
  CoreUnavailable,
  CustomerNotRecognised,
  SessionRejected,
  type CoreConnector,
  type CoreSession,
} from '../../src/ports/core-connector.js';
import type { CircuitState } from '../../src/ports/metrics.js';

const CONTEXT = { requestId: 'breaker-test' };
/** The minimum volume: a core failing every call opens the circuit after this many calls. */
const THRESHOLD = 3;
const COOLDOWN = 10;

/** Moves cockatiel's time (it reads `Date.now()`). */
const clock = { advance: (seconds: number) => mock.timers.tick(seconds * 1000) };

/** A core whose next answers the test decides: an error to throw, or success. */
class ScriptedCore implements CoreConnector {
  calls = 0;
  pings = 0;
  /** Thrown by every call while set. */
  failure: (() => unknown) | undefined;
  /** When set, calls wait for it before answering. */
  gate: Promise<void> | undefined;

  async startSession(): Promise<CoreSession> {
    await this.answer();
    return { customerKey: 'C-1', delegateReferenceId: 'd', expiresAt: new Date(0) };
  }

  async listAccounts(): Promise<AccountRecord[]> {
    await this.answer();
    return [];
  }

  async ping(): Promise<void> {
    this.pings += 1;
  }

  async close(): Promise<void> {}

  private async answer(): Promise<void> {
    this.calls += 1;
    const failure = this.failure;
    await this.gate;
    if (failure) throw failure();
  }
}

function setup(threshold = THRESHOLD) {
  const core = new ScriptedCore();
  const states: CircuitState[] = [];
  const rejected: string[] = [];
  const connector = new GuardedCoreConnector(core, {
    metrics: { coreCall: () => {} },
    breaker: {
      minimumCalls: threshold,
      cooldownSeconds: COOLDOWN,
      onStateChange: (state) => states.push(state),
      onRejected: (operation) => rejected.push(operation),
    },
  });
  const breaker = connector.breaker!;
  const call = () => connector.listAccounts('d', CONTEXT);
  return { clock, core, connector, breaker, states, rejected, call };
}

const unavailable = () => new CoreUnavailable('the core answered 500', true);
const offProtocol = () => new CoreProtocolError('unexpected answer 404 to listAccounts', true);

async function failTimes(call: () => Promise<unknown>, times: number): Promise<void> {
  for (let i = 0; i < times; i += 1) await assert.rejects(call(), CoreUnavailable);
}

async function assertOpen(call: () => Promise<unknown>, retryAfterSeconds: number): Promise<void> {
  await assert.rejects(call(), (error: unknown) => {
    assert.ok(error instanceof CoreCircuitOpen, `expected CoreCircuitOpen, got ${String(error)}`);
    assert.equal(error.retryAfterSeconds, retryAfterSeconds);
    assert.equal(error.retrySafe, true);
    return true;
  });
}

describe('core circuit breaker', () => {
  beforeEach(() => mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-03-01T12:00:00Z') }));
  afterEach(() => mock.timers.reset());

  it('passes calls through while closed, and opens after N failing calls', async () => {
    const { core, breaker, states, call } = setup();
    assert.deepEqual(await setup().call(), [], 'a closed circuit passes calls through');
    core.failure = unavailable;
    await failTimes(call, THRESHOLD - 1);
    assert.equal(breaker.state, 'closed', 'fewer than N calls in the window');
    await failTimes(call, 1);
    assert.equal(breaker.state, 'open');
    assert.deepEqual(states, ['open']);
    assert.equal(core.calls, THRESHOLD);
  });

  it('counts protocol errors as failures, on either operation', async () => {
    const { connector, core, breaker } = setup();
    core.failure = offProtocol;
    await assert.rejects(
      connector.startSession({ kind: 'customerKey', customerKey: 'C-1' }, CONTEXT),
      CoreProtocolError,
    );
    await assert.rejects(connector.listAccounts('d', CONTEXT), CoreProtocolError);
    await assert.rejects(
      connector.startSession({ kind: 'customerKey', customerKey: 'C-1' }, CONTEXT),
      CoreProtocolError,
    );
    assert.equal(breaker.state, 'open');
  });

  it('opens on the failure rate: half the calls failing keeps it closed, more than half opens it', async () => {
    const { core, breaker, call } = setup();
    for (let round = 0; round < 10; round += 1) {
      core.failure = undefined;
      await call();
      core.failure = unavailable;
      await failTimes(call, 1);
    }
    assert.equal(breaker.state, 'closed', '10 of 20 failed');
    await failTimes(call, 1);
    assert.equal(breaker.state, 'open', '11 of 21 failed');
  });

  it('keeps a core failing half its calls answering the other half; a core failing every call opens within N calls', async () => {
    const MINIMUM = 20;
    const { core, breaker, call, rejected } = setup(MINIMUM);
    let answered = 0;
    for (let i = 0; i < 200; i += 1) {
      // Runs of five failures, which opened the former consecutive-failure breaker at its default.
      core.failure = Math.floor(i / 5) % 2 === 0 ? undefined : unavailable;
      clock.advance(0.1);
      try {
        await call();
        answered += 1;
      } catch (error) {
        assert.ok(error instanceof CoreUnavailable, `call ${i}: ${String(error)}`);
      }
    }
    assert.equal(answered, 100, 'half the calls answered over 20 s');
    assert.equal(breaker.state, 'closed');
    assert.deepEqual(rejected, []);

    // The core goes down: the failures outweigh the window's successes within N calls.
    core.failure = unavailable;
    let failures = 0;
    while (breaker.state === 'closed' && failures < 100) {
      clock.advance(0.1);
      await failTimes(call, 1);
      failures += 1;
    }
    assert.equal(breaker.state, 'open');
    assert.ok(failures <= MINIMUM, `opened after ${failures} failures`);
    await assertOpen(call, COOLDOWN);
  });

  it('takes the core’s typed answers (unknown customer, rejected session) as proof that it works', async () => {
    const { core, breaker, call } = setup();
    for (const answer of [() => new CustomerNotRecognised(), () => new SessionRejected()]) {
      for (let i = 0; i < THRESHOLD * 2; i += 1) {
        core.failure = answer;
        await assert.rejects(call());
        core.failure = unavailable;
        await failTimes(call, 1);
      }
      assert.equal(breaker.state, 'closed', 'as many answers as failures');
    }
    core.failure = () => new CustomerNotRecognised();
    for (let i = 0; i < THRESHOLD * 2; i += 1) await assert.rejects(call(), CustomerNotRecognised);
    assert.equal(breaker.state, 'closed');
  });

  it('neither counts nor forgives errors that are not the core’s (a bug on our side)', async () => {
    const { core, breaker, call } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD - 1);
    core.failure = () => new TypeError('bug');
    for (let i = 0; i < THRESHOLD; i += 1) await assert.rejects(call(), TypeError);
    assert.equal(breaker.state, 'closed');
    core.failure = unavailable;
    await failTimes(call, 1);
    assert.equal(breaker.state, 'open');
  });

  it('refuses at once while open, without calling the core, with the cool-down left as Retry-After', async () => {
    const { connector, core, call, rejected } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    const calls = core.calls;
    await assertOpen(call, COOLDOWN);
    await assert.rejects(connector.startSession({ kind: 'customerKey', customerKey: 'C-1' }, CONTEXT), CoreCircuitOpen);
    clock.advance(3.5);
    await assertOpen(call, 7);
    clock.advance(6);
    await assertOpen(call, 1);
    assert.equal(core.calls, calls, 'the core was not called');
    assert.deepEqual(rejected, ['listAccounts', 'startSession', 'listAccounts', 'listAccounts']);
  });

  it('lets one probe through after the cool-down; its success closes the circuit', async () => {
    const { core, breaker, states, call } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    clock.advance(COOLDOWN);
    core.failure = undefined;
    let release!: () => void;
    core.gate = new Promise((resolve) => (release = resolve));
    const probe = call();
    assert.equal(breaker.state, 'half_open');
    // While the probe is out, others are refused, told to come back soon.
    await assertOpen(call, 1);
    assert.equal(core.calls, THRESHOLD + 1, 'exactly one probe reached the core');
    release();
    core.gate = undefined;
    assert.deepEqual(await probe, []);
    assert.equal(breaker.state, 'closed');
    assert.deepEqual(await call(), []);
    assert.deepEqual(states, ['open', 'half_open', 'closed']);
  });

  it('opens again for a whole cool-down when the probe fails', async () => {
    const { core, breaker, states, call } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    clock.advance(COOLDOWN + 5);
    await failTimes(call, 1);
    assert.equal(breaker.state, 'open');
    await assertOpen(call, COOLDOWN);
    clock.advance(COOLDOWN);
    core.failure = undefined;
    await call();
    assert.equal(breaker.state, 'closed');
    assert.deepEqual(states, ['open', 'half_open', 'open', 'half_open', 'closed']);
  });

  it('after closing, starts a new window: the probe’s success, then N calls before it can open again', async () => {
    const { core, breaker, call } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    clock.advance(COOLDOWN);
    core.failure = undefined;
    await call();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD - 2);
    assert.equal(breaker.state, 'closed', 'fewer than N calls in the new window');
    await failTimes(call, 1);
    assert.equal(breaker.state, 'open', `${THRESHOLD - 1} of ${THRESHOLD} failed`);
  });

  it('closes when the probe ends in an error that is not the core’s (it says nothing against the core)', async () => {
    const { core, breaker, call } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    clock.advance(COOLDOWN);
    core.failure = () => new TypeError('bug');
    await assert.rejects(call(), TypeError);
    assert.equal(breaker.state, 'closed');
    core.failure = undefined;
    await call();
    assert.equal(breaker.state, 'closed');
  });

  it('ignores the late result of a call that started before the state changed', async () => {
    const { core, breaker, call } = setup();
    // A slow call starts while closed...
    let release!: () => void;
    core.gate = new Promise((resolve) => (release = resolve));
    core.failure = undefined;
    const slow = call();
    core.gate = undefined;
    // ...the circuit opens meanwhile and its probe is under way...
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    clock.advance(COOLDOWN);
    let releaseProbe!: () => void;
    core.gate = new Promise((resolve) => (releaseProbe = resolve));
    const probe = call();
    core.gate = undefined;
    // ...and the slow call's success says nothing about the core now.
    release();
    await slow;
    assert.equal(breaker.state, 'half_open', 'only the probe decides');
    releaseProbe();
    await assert.rejects(probe, CoreUnavailable);
    assert.equal(breaker.state, 'open');
  });

  it('sends readiness pings to the core whatever the state, without moving it', async () => {
    const { connector, core, breaker, call } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    await connector.ping(CONTEXT);
    assert.equal(core.pings, 1);
    assert.equal(breaker.state, 'open');
  });

  it('opens on the first failure with a threshold of 1, and refuses nonsense settings', async () => {
    const { core, breaker, call } = setup(1);
    core.failure = unavailable;
    await failTimes(call, 1);
    assert.equal(breaker.state, 'open');
    assert.throws(() => new CoreBreaker({ minimumCalls: 0, cooldownSeconds: 1 }), RangeError);
    assert.throws(() => new CoreBreaker({ minimumCalls: 1, cooldownSeconds: 0 }), RangeError);
    assert.throws(() => new CoreBreaker({ minimumCalls: 1, cooldownSeconds: 1, failureRate: 1 }), RangeError);
  });
});
