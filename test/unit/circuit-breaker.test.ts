/**
 * The core circuit breaker's state machine, on a fake clock: closed → open after
 * N consecutive failures of the core; open refuses at once with the time left as
 * Retry-After; after the cool-down exactly one probe goes through; its success
 * closes, its failure opens again. Typed answers of the core are not failures.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CircuitBreakerConnector } from '../../src/adapters/core/circuit-breaker-connector.js';
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
import { FakeClock } from '../support/fake-clock.js';

const CONTEXT = { requestId: 'breaker-test' };
const THRESHOLD = 3;
const COOLDOWN = 10;

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
  const clock = new FakeClock();
  const core = new ScriptedCore();
  const states: CircuitState[] = [];
  const rejected: string[] = [];
  const breaker = new CircuitBreakerConnector(core, {
    clock,
    failureThreshold: threshold,
    cooldownSeconds: COOLDOWN,
    onStateChange: (state) => states.push(state),
    onRejected: (operation) => rejected.push(operation),
  });
  const call = () => breaker.listAccounts('d', CONTEXT);
  return { clock, core, breaker, states, rejected, call };
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
  it('passes calls through while closed, and opens after N consecutive failures', async () => {
    const { core, breaker, states, call } = setup();
    assert.deepEqual(await call(), []);
    core.failure = unavailable;
    await failTimes(call, THRESHOLD - 1);
    assert.equal(breaker.state, 'closed');
    await failTimes(call, 1);
    assert.equal(breaker.state, 'open');
    assert.deepEqual(states, ['open']);
    assert.equal(core.calls, THRESHOLD + 1);
  });

  it('counts protocol errors as failures, on either operation', async () => {
    const { core, breaker } = setup();
    core.failure = offProtocol;
    await assert.rejects(breaker.startSession({ kind: 'customerKey', customerKey: 'C-1' }, CONTEXT), CoreProtocolError);
    await assert.rejects(breaker.listAccounts('d', CONTEXT), CoreProtocolError);
    await assert.rejects(breaker.startSession({ kind: 'customerKey', customerKey: 'C-1' }, CONTEXT), CoreProtocolError);
    assert.equal(breaker.state, 'open');
  });

  it('needs the failures to be consecutive: a success starts the count again', async () => {
    const { core, breaker, call } = setup();
    for (let round = 0; round < 3; round += 1) {
      core.failure = unavailable;
      await failTimes(call, THRESHOLD - 1);
      core.failure = undefined;
      await call();
    }
    assert.equal(breaker.state, 'closed');
  });

  it('takes the core’s typed answers (unknown customer, rejected session) as proof that it works', async () => {
    const { core, breaker, call } = setup();
    for (const answer of [() => new CustomerNotRecognised(), () => new SessionRejected()]) {
      core.failure = unavailable;
      await failTimes(call, THRESHOLD - 1);
      core.failure = answer;
      await assert.rejects(call());
      core.failure = unavailable;
      await failTimes(call, THRESHOLD - 1);
      assert.equal(breaker.state, 'closed', 'the count started again after the answer');
      core.failure = answer;
      await assert.rejects(call());
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
    const { clock, core, call, rejected, breaker } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    const calls = core.calls;
    await assertOpen(call, COOLDOWN);
    await assert.rejects(breaker.startSession({ kind: 'customerKey', customerKey: 'C-1' }, CONTEXT), CoreCircuitOpen);
    clock.advance(3.5);
    await assertOpen(call, 7);
    clock.advance(6);
    await assertOpen(call, 1);
    assert.equal(core.calls, calls, 'the core was not called');
    assert.deepEqual(rejected, ['listAccounts', 'startSession', 'listAccounts', 'listAccounts']);
  });

  it('lets one probe through after the cool-down; its success closes the circuit', async () => {
    const { clock, core, breaker, states, call } = setup();
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
    const { clock, core, breaker, states, call } = setup();
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

  it('after closing, needs N new failures to open again', async () => {
    const { clock, core, breaker, call } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    clock.advance(COOLDOWN);
    core.failure = undefined;
    await call();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD - 1);
    assert.equal(breaker.state, 'closed');
    await failTimes(call, 1);
    assert.equal(breaker.state, 'open');
  });

  it('lets the next call probe when the probe ends in an error that is not the core’s', async () => {
    const { clock, core, breaker, call } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    clock.advance(COOLDOWN);
    core.failure = () => new TypeError('bug');
    await assert.rejects(call(), TypeError);
    assert.equal(breaker.state, 'half_open');
    core.failure = undefined;
    await call();
    assert.equal(breaker.state, 'closed');
  });

  it('ignores the late result of a call that started before the state changed', async () => {
    const { clock, core, breaker, call } = setup();
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
    const { core, breaker, call } = setup();
    core.failure = unavailable;
    await failTimes(call, THRESHOLD);
    await breaker.ping(CONTEXT);
    assert.equal(core.pings, 1);
    assert.equal(breaker.state, 'open');
  });

  it('opens on the first failure with a threshold of 1, and refuses nonsense settings', async () => {
    const { core, breaker, call } = setup(1);
    core.failure = unavailable;
    await failTimes(call, 1);
    assert.equal(breaker.state, 'open');
    const clock = new FakeClock();
    assert.throws(() => new CircuitBreakerConnector(core, { clock, failureThreshold: 0, cooldownSeconds: 1 }), RangeError);
    assert.throws(() => new CircuitBreakerConnector(core, { clock, failureThreshold: 1, cooldownSeconds: 0 }), RangeError);
  });
});
