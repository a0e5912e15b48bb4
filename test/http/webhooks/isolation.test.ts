/**
 * One platform's receiver never delays another's deliveries: with a receiver that
 * hangs for platform A (a real local HTTP server that never answers) and a backlog
 * of A's deliveries, platform B's delivery arrives within its own round trip, and A
 * holds no more than its endpoint's few slots. The sender's deadline runs from the
 * request's own start: a request to an origin whose other requests hang is not
 * queued behind them.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_PER_ENDPOINT } from '../../../src/app/webhook-dispatcher.js';
import { UndiciWebhookSender } from '../../../src/adapters/webhooks/undici-webhook-sender.js';
import { adminOperations, executeAdminOperation, type AdminHandlers } from '../../../src/server/admin-operations.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ADA, assertSuccess, formA, postSession, uniqueId } from '../gateway/gateway-requests.js';
import { HangingReceiver } from './hanging-receiver.js';
import { TestReceiver } from './receiver.js';

/**
 * Polls `condition` until it holds or the test is cancelled (`signal`, at the suite's time
 * limit): however slow the host, no step has a clock of its own, and a cancelled test stops polling.
 */
async function until(condition: () => boolean, signal: AbortSignal): Promise<void> {
  while (!condition()) await sleep(5, undefined, { signal });
}

for (const backend of BACKENDS) {
  describe(`webhook isolation between platforms (${backend.name})`, { skip: backend.skip, timeout: 60_000 }, () => {
    let h: Harness;
    let admin: AdminHandlers;
    let hanging: HangingReceiver;
    let fast: TestReceiver;

    before(async () => {
      h = await createHarness(backend);
      h.clock.set(new Date());
      admin = adminOperations(h.services);
      hanging = await new HangingReceiver().start();
      fast = await new TestReceiver().start();
    });
    after(async () => {
      await h?.services.webhookDispatcher.stop(0);
      await hanging?.close();
      await fast?.close();
      await h?.close();
    });

    it("a hanging receiver for platform A: B's delivery arrives while A's attempts hang, and A holds only its endpoint's slots", async (t) => {
      await executeAdminOperation(admin, 'webhooks.add', { platform: 'iso-a', url: hanging.url });
      await executeAdminOperation(admin, 'webhooks.add', { platform: 'iso-b', url: fast.url });
      const tokenA = await h.token(await h.client({ platform: 'iso-a' }));
      const tokenB = await h.token(await h.client({ platform: 'iso-b' }));
      // More of A's deliveries than a whole claim used to take.
      for (let index = 0; index < 25; index += 1)
        assertSuccess(await postSession(h, { token: tokenA }, formA(uniqueId('hang'), ADA)));
      h.services.webhookDispatcher.start();
      await until(() => hanging.received >= DEFAULT_PER_ENDPOINT, t.signal);

      const sentAt = Date.now();
      assertSuccess(await postSession(h, { token: tokenB }, formA(uniqueId('fast'), ADA)));
      // What A's receiver holds the moment B's delivery is in: B did not wait for one of A's
      // attempts to end (at its 10 s deadline) and free a slot, however slow the host.
      let heldByA = -1;
      await until(() => {
        if (fast.received.length === 0) return false;
        heldByA = hanging.open;
        return true;
      }, t.signal);
      t.diagnostic(`B's delivery arrived ${Date.now() - sentAt} ms after its commit`);
      assert.equal(heldByA, DEFAULT_PER_ENDPOINT, "B's delivery arrived while every one of A's attempts still hung");
      assert.equal(hanging.mostOpenAtOnce, DEFAULT_PER_ENDPOINT, 'A holds at most its endpoint limit of attempts');
      assert.equal(hanging.received, DEFAULT_PER_ENDPOINT);
    });
  });
}

describe('webhook sender deadline', { timeout: 30_000 }, () => {
  it('a request to an origin whose earlier requests hang goes on the wire at once, not behind them', async (t) => {
    const hanging = await new HangingReceiver().start();
    const sender = new UndiciWebhookSender({ production: false, allowPrivate: false });
    t.after(async () => {
      await sender.close();
      await hanging.close();
    });
    const stuck = Array.from({ length: 6 }, () => sender.send(hanging.url, {}, '{}').catch(() => undefined));
    // Behind the hanging ones, the last two would reach the receiver only after the first
    // ones' deadline closed them: fewer than six open at once.
    await until(() => hanging.received === 6, t.signal);
    // More requests than the old pool's four connections: every one of them reached the receiver.
    assert.equal(hanging.mostOpenAtOnce, 6);
    void stuck;
  });
});
