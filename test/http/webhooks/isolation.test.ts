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

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
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

    it("a hanging receiver for platform A: B's delivery arrives in under a second, and A holds only its endpoint's slots", async (t) => {
      await executeAdminOperation(admin, 'webhooks.add', { platform: 'iso-a', url: hanging.url });
      await executeAdminOperation(admin, 'webhooks.add', { platform: 'iso-b', url: fast.url });
      const tokenA = await h.token(await h.client({ platform: 'iso-a' }));
      const tokenB = await h.token(await h.client({ platform: 'iso-b' }));
      // More of A's deliveries than a whole claim used to take.
      for (let index = 0; index < 25; index += 1)
        assertSuccess(await postSession(h, { token: tokenA }, formA(uniqueId('hang'), ADA)));
      h.services.webhookDispatcher.start();
      await until(() => hanging.received >= DEFAULT_PER_ENDPOINT, 5_000, "A's receiver to hold its deliveries");

      const sentAt = Date.now();
      assertSuccess(await postSession(h, { token: tokenB }, formA(uniqueId('fast'), ADA)));
      await until(() => fast.received.length >= 1, 5_000, "B's delivery");
      const took = Date.now() - sentAt;
      t.diagnostic(`B's delivery arrived ${took} ms after its commit`);
      assert.ok(took < 1_000, `B's delivery took ${took} ms`);
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
    await until(() => hanging.received === 6, 5_000, 'six hanging requests');
    // More requests than the old pool's four connections: every one of them reached the receiver.
    assert.equal(hanging.mostOpenAtOnce, 6);
    void stuck;
  });
});
