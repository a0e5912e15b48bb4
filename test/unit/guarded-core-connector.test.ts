/**
 * The guarded core (`adapters/core/guarded-core-connector.ts`): reading accounts is
 * retried after a core failure that is safe to repeat, while less than half the core
 * timeout has passed; starting a session never is. The breaker takes a call with its
 * retries as one outcome; every attempt that reaches the core is counted and timed.
 * The breaker's own state machine is `circuit-breaker.test.ts`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GuardedCoreConnector, type CoreRetryOptions } from '../../src/adapters/core/guarded-core-connector.js';
import type { AccountRecord } from '../../src/domain/account.js';
import {
  CoreBusy,
  CoreCircuitOpen,
  CoreUnavailable,
  SessionRejected,
  type CoreConnector,
  type CoreSession,
} from '../../src/ports/core-connector.js';

class FailingCore implements CoreConnector {
  sessions = 0;
  accounts = 0;
  constructor(
    private failures: number,
    private readonly error: () => Error = () => new CoreUnavailable('the core answered 503', true),
    private readonly delayMs = 0,
  ) {}
  async startSession(): Promise<CoreSession> {
    this.sessions += 1;
    throw new CoreUnavailable('connection reset', false);
  }
  async listAccounts(): Promise<AccountRecord[]> {
    this.accounts += 1;
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.failures > 0) {
      this.failures -= 1;
      throw this.error();
    }
    return [];
  }
  async close(): Promise<void> {}
}

const context = { requestId: 'r1' };
const NO_METRICS = { coreCall: () => {} };

/** The guarded core with retries only (no breaker). */
const retrying = (inner: CoreConnector, retry: CoreRetryOptions) =>
  new GuardedCoreConnector(inner, { metrics: NO_METRICS, retry });

describe('guarded core: retries', () => {
  it('retries a failed accounts read into a success', async () => {
    const inner = new FailingCore(2);
    assert.deepEqual(await retrying(inner, { budgetMs: 5000 }).listAccounts('d', context), []);
    assert.equal(inner.accounts, 3);
  });

  it('gives each call its own retries (one policy serves every call)', async () => {
    const inner = new FailingCore(2);
    const connector = retrying(inner, { budgetMs: 5000, initialDelayMs: 1 });
    assert.deepEqual(await connector.listAccounts('d', context), []);
    (inner as unknown as { failures: number }).failures = 2;
    assert.deepEqual(await connector.listAccounts('d', context), []);
    assert.equal(inner.accounts, 6);
  });

  it('gives up after the configured retries', async () => {
    const inner = new FailingCore(5);
    await assert.rejects(retrying(inner, { budgetMs: 5000, retries: 1 }).listAccounts('d', context), CoreUnavailable);
    assert.equal(inner.accounts, 2);
  });

  it('never retries starting a session', async () => {
    const inner = new FailingCore(0);
    await assert.rejects(
      retrying(inner, { budgetMs: 5000 }).startSession({ kind: 'customerKey', customerKey: 'C-1' } as never, context),
      CoreUnavailable,
    );
    assert.equal(inner.sessions, 1);
  });

  it('does not retry what is not a core failure (a rejected session is an answer)', async () => {
    const inner = new FailingCore(1, () => new SessionRejected());
    await assert.rejects(retrying(inner, { budgetMs: 5000 }).listAccounts('d', context), SessionRejected);
    assert.equal(inner.accounts, 1);
  });

  it('does not retry once half the deadline is spent', async () => {
    const inner = new FailingCore(1, undefined, 60);
    const error = await retrying(inner, { budgetMs: 100 })
      .listAccounts('d', context)
      .catch((thrown: unknown) => thrown);
    // The core's own error, not a wrapper of it.
    assert.ok(error instanceof CoreUnavailable);
    assert.equal(inner.accounts, 1);
  });
});

describe('guarded core: retries inside the breaker, metrics', () => {
  it('lets the breaker take a call with its retries as one outcome', async () => {
    const inner = new FailingCore(100);
    const guarded = new GuardedCoreConnector(inner, {
      metrics: NO_METRICS,
      retry: { budgetMs: 5000, initialDelayMs: 1 },
      breaker: { minimumCalls: 2, cooldownSeconds: 10 },
    });
    await assert.rejects(guarded.listAccounts('d', context), CoreUnavailable);
    assert.equal(inner.accounts, 3, 'one call, three attempts');
    assert.equal(guarded.breaker!.state, 'closed', 'one failed call, fewer than the two the breaker waits for');
    await assert.rejects(guarded.listAccounts('d', context), CoreUnavailable);
    assert.equal(guarded.breaker!.state, 'open');
    await assert.rejects(guarded.listAccounts('d', context), CoreCircuitOpen);
    assert.equal(inner.accounts, 6, 'refused without reaching the core');
  });

  it('passes a 429 of the core on at once: neither retried nor a failure for the breaker', async () => {
    const inner = new FailingCore(100, () => new CoreBusy(1));
    const outcomes: string[] = [];
    const guarded = new GuardedCoreConnector(inner, {
      metrics: { coreCall: (_operation, outcome) => outcomes.push(outcome) },
      retry: { budgetMs: 5000, initialDelayMs: 1 },
      breaker: { minimumCalls: 2, cooldownSeconds: 10 },
    });
    for (let call = 0; call < 5; call++) await assert.rejects(guarded.listAccounts('d', context), CoreBusy);
    assert.equal(inner.accounts, 5, 'one attempt per call: the core asked for fewer calls, not more');
    assert.equal(guarded.breaker!.state, 'closed', 'the core answered: it is not down');
    assert.deepEqual([...new Set(outcomes)], ['busy']);
  });

  it('counts and times every attempt that reaches the core, under its institution, and not the refused calls', async () => {
    const counted: string[] = [];
    const inner = new FailingCore(1);
    const guarded = new GuardedCoreConnector(inner, {
      institution: 'bank-b',
      metrics: {
        coreCall: (operation, outcome, seconds, institution) => {
          assert.ok(seconds >= 0);
          counted.push(`${operation} ${outcome} ${institution}`);
        },
      },
      retry: { budgetMs: 5000, initialDelayMs: 1 },
      breaker: { minimumCalls: 1, cooldownSeconds: 10 },
    });
    assert.deepEqual(await guarded.listAccounts('d', context), []);
    // Two of three calls failed: the circuit opens, and the next call is refused.
    await assert.rejects(guarded.startSession({ kind: 'customerKey', customerKey: 'C-1' }, context), CoreUnavailable);
    await assert.rejects(guarded.startSession({ kind: 'customerKey', customerKey: 'C-1' }, context), CoreUnavailable);
    await assert.rejects(guarded.startSession({ kind: 'customerKey', customerKey: 'C-1' }, context), CoreCircuitOpen);
    assert.deepEqual(counted, [
      'listAccounts unavailable bank-b',
      'listAccounts ok bank-b',
      'startSession unavailable bank-b',
      'startSession unavailable bank-b',
    ]);
  });

  it('passes calls straight through without breaker and retries, and ends no session on a core without the call', async () => {
    const inner = new FailingCore(1);
    const guarded = new GuardedCoreConnector(inner, { metrics: NO_METRICS, retry: { budgetMs: 5000, retries: 0 } });
    assert.equal(guarded.breaker, undefined);
    await assert.rejects(guarded.listAccounts('d', context), CoreUnavailable);
    assert.deepEqual(await guarded.listAccounts('d', context), []);
    assert.equal(inner.accounts, 2);
    await guarded.endSession('d', context);
    await guarded.ping(context);
  });
});
