/**
 * Retries of core calls (issue 9): reading accounts is retried after a core failure
 * that is safe to repeat, within the deadline; starting a session never is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RetryingCoreConnector } from '../../src/adapters/core/retrying-core-connector.js';
import type { AccountRecord } from '../../src/domain/account.js';
import { CoreUnavailable, SessionRejected, type CoreConnector, type CoreSession } from '../../src/ports/core-connector.js';

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

describe('RetryingCoreConnector', () => {
  it('retries a failed accounts read into a success', async () => {
    const inner = new FailingCore(2);
    assert.deepEqual(await new RetryingCoreConnector(inner, { budgetMs: 5000 }).listAccounts('d', context), []);
    assert.equal(inner.accounts, 3);
  });

  it('gives each call its own retries (one policy serves every call)', async () => {
    const inner = new FailingCore(2);
    const connector = new RetryingCoreConnector(inner, { budgetMs: 5000, initialDelayMs: 1 });
    assert.deepEqual(await connector.listAccounts('d', context), []);
    (inner as unknown as { failures: number }).failures = 2;
    assert.deepEqual(await connector.listAccounts('d', context), []);
    assert.equal(inner.accounts, 6);
  });

  it('gives up after the configured retries', async () => {
    const inner = new FailingCore(5);
    await assert.rejects(new RetryingCoreConnector(inner, { budgetMs: 5000, retries: 1 }).listAccounts('d', context), CoreUnavailable);
    assert.equal(inner.accounts, 2);
  });

  it('never retries starting a session', async () => {
    const inner = new FailingCore(0);
    await assert.rejects(new RetryingCoreConnector(inner, { budgetMs: 5000 }).startSession({ kind: 'customerKey', customerKey: 'C-1' } as never, context), CoreUnavailable);
    assert.equal(inner.sessions, 1);
  });

  it('does not retry what is not a core failure (a rejected session is an answer)', async () => {
    const inner = new FailingCore(1, () => new SessionRejected());
    await assert.rejects(new RetryingCoreConnector(inner, { budgetMs: 5000 }).listAccounts('d', context), SessionRejected);
    assert.equal(inner.accounts, 1);
  });

  it('does not retry once half the deadline is spent', async () => {
    const inner = new FailingCore(1, undefined, 60);
    const error = await new RetryingCoreConnector(inner, { budgetMs: 100 }).listAccounts('d', context).catch((thrown: unknown) => thrown);
    // The core's own error, not a wrapper of it.
    assert.ok(error instanceof CoreUnavailable);
    assert.equal(inner.accounts, 1);
  });
});
