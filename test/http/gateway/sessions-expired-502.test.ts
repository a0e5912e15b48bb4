/**
 * A core that answers a new session already past its `expiresAt` (its clock an hour behind, say)
 * broke the protocol: registration answers 502 `core_failed` and stores nothing, and a renewal
 * that gets such a session fails the same way instead of storing a session that every call
 * would renew again (docs/behaviour.md#registration-outcomes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import type { Clock } from '../../../src/ports/clock.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertError,
  assertSuccess,
  associationCount,
  BAD_GATEWAY,
  BOB,
  formB,
  getAccounts,
  postSession,
  uniqueId,
} from './gateway-requests.js';

const TTL_SECONDS = 600;

/** The harness's clock shifted by `lagSeconds` into the past: a core whose clock is behind. */
class LaggingClock implements Clock {
  target: Clock | undefined;
  lagSeconds = 0;
  now(): Date {
    return new Date(this.target!.now().getTime() - this.lagSeconds * 1000);
  }
}

for (const backend of BACKENDS) {
  describe(`a core answering sessions already expired (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    const clock = new LaggingClock();
    const simulator = new CoreSimulator({ clock, sessionTtlSeconds: TTL_SECONDS });

    before(async () => {
      h = await createHarness(backend, {
        core: new InProcessCoreConnector(simulator, { timeoutMs: 1000 }),
        env: { COREGATE_CORE_BREAKER_FAILURES: '0' },
      });
      clock.target = h.clock;
      token = await h.token(await h.client({ platform: 'expired-sessions' }));
    });
    after(() => h?.close());

    it('registration: 502 core_failed, nothing stored', async () => {
      clock.lagSeconds = 3600;
      try {
        const rows = await associationCount(h);
        const envelope = assertError(
          await postSession(h, { token }, formB(uniqueId('expired'), BOB.customerKey)),
          BAD_GATEWAY,
        );
        assert.equal(envelope.data.reason, 'core_failed');
        assert.equal(await associationCount(h), rows, 'nothing stored');
        clock.lagSeconds = TTL_SECONDS;
        assertError(await postSession(h, { token }, formB(uniqueId('at-expiry'), BOB.customerKey)), BAD_GATEWAY);
      } finally {
        clock.lagSeconds = 0;
      }
    });

    it('renewal: 502 core_failed, and the next call renews again with a sound core', async () => {
      const customerId = uniqueId('renewed');
      assertSuccess(await postSession(h, { token }, formB(customerId, BOB.customerKey)));
      h.clock.advance(TTL_SECONDS + 1);
      clock.lagSeconds = 3600;
      try {
        const envelope = assertError(await getAccounts(h, { token }, customerId), BAD_GATEWAY);
        assert.equal(envelope.data.reason, 'core_failed');
      } finally {
        clock.lagSeconds = 0;
      }
      assert.deepEqual(assertSuccess(await getAccounts(h, { token }, customerId)), BOB.accounts);
    });
  });
}
