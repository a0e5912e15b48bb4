/**
 * Webhooks end to end in one process (docs/behaviour.md#webhook-delivery), on PGlite and
 * PostgreSQL: an event recorded with its change is delivered, signed per Standard Webhooks
 * (verified with the `standardwebhooks` package, not with our code), retried on the schedule
 * with a stable `webhook-id`, 410 disabling the endpoint, both secrets signing after a
 * rotation; and on PostgreSQL two dispatchers on one database deliver each event once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WebhookDispatcher } from '../../../src/app/webhook-dispatcher.js';
import { AesGcmSealer } from '../../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKeys } from '../../../src/adapters/crypto/encryption-keys.js';
import { PostgresDatabase } from '../../../src/adapters/store/postgres-database.js';
import { SqlWebhookStore } from '../../../src/adapters/store/sql-webhook-store.js';
import { UndiciWebhookSender } from '../../../src/adapters/webhooks/undici-webhook-sender.js';
import { adminOperations, executeAdminOperation, type AdminHandlers } from '../../../src/server/admin-operations.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ADA, assertSuccess, formA, postSession, uniqueId } from '../gateway/gateway-requests.js';
import { TestReceiver } from './receiver.js';

for (const backend of BACKENDS) {
  describe(`webhook delivery (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let admin: AdminHandlers;
    let receiver: TestReceiver;
    let token: string;
    let databaseUrl: string | undefined;
    const platform = 'hooks-a';

    before(async () => {
      h = await createHarness(backend, { env: { COREGATE_WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1' } });
      databaseUrl = h.services.config.databaseUrl;
      // standardwebhooks checks the timestamp against the real time.
      h.clock.set(new Date());
      admin = adminOperations(h.services);
      receiver = await new TestReceiver().start();
      token = await h.token(await h.client({ platform }));
    });
    after(async () => {
      await receiver?.close();
      await h?.close();
    });

    const deregister = (customerId: string) =>
      h.app.inject({
        method: 'DELETE',
        url: `/core/sessions?customerId=${customerId}`,
        headers: { authorization: `Bearer ${token}` },
      });

    it('delivers customer.registered and customer.deregistered, signed, without personal data', async () => {
      const added = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
      assert.match(added.secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
      assert.ok(Buffer.from(added.secret.slice(6), 'base64').length >= 24);
      assert.deepEqual(added.events, []);
      const listed = await executeAdminOperation(admin, 'webhooks.list', { platform });
      assert.ok(!JSON.stringify(listed).includes(added.secret.slice(6)), 'list never shows the secret');

      const customerId = uniqueId('hooked');
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1);
      assertSuccess(await deregister(customerId));
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1);

      const verifier = new Webhook(added.secret);
      const bodies = receiver.received.map(
        (received) => verifier.verify(received.body, TestReceiver.headersOf(received)) as Record<string, unknown>,
      );
      assert.deepEqual(
        bodies.map((body) => [body['type'], body['data']]),
        [
          ['customer.registered', { institution: 'default', platform, customerId }],
          ['customer.deregistered', { institution: 'default', platform, customerId, reason: 'platform_request' }],
        ],
      );
      for (const received of receiver.received) {
        assert.ok(
          !received.body.includes(ADA.customerKey) && !received.body.includes(ADA.accountNumber),
          'no customer key or personal data',
        );
        assert.throws(
          () =>
            new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(
              received.body,
              TestReceiver.headersOf(received),
            ),
          'another secret fails',
        );
      }
      const deliveries = await executeAdminOperation(admin, 'webhooks.deliveries', { platform });
      assert.deepEqual(
        deliveries.map((d) => [d.eventType, d.status, d.attempts, d.lastStatus, d.nextAttemptAt]),
        [
          ['customer.deregistered', 'delivered', 1, 204, null],
          ['customer.registered', 'delivered', 1, 204, null],
        ],
      );
      await executeAdminOperation(admin, 'webhooks.remove', { id: added.id });
      receiver.received.length = 0;
    });

    it('retries on the schedule: failing twice, delivered on the third attempt with attempts 3 and the same webhook-id', async () => {
      const added = await executeAdminOperation(admin, 'webhooks.add', {
        platform,
        url: receiver.url,
        events: ['customer.registered'],
      });
      receiver.script.push(500, 503);
      assertSuccess(await postSession(h, { token }, formA(uniqueId('retry'), ADA)));
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1, 'first attempt');
      assert.equal(await h.services.webhookDispatcher.runOnce(), 0, 'not due before the schedule says');
      h.clock.advance(1);
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1, 'second attempt');
      let [delivery] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform, limit: 1 });
      assert.deepEqual([delivery!.status, delivery!.attempts, delivery!.lastStatus], ['pending', 2, 503]);
      assert.equal(delivery!.nextAttemptAt, new Date(h.clock.now().getTime() + 1000).toISOString());
      h.clock.advance(1);
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1, 'third attempt');
      [delivery] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform, limit: 1 });
      assert.deepEqual([delivery!.status, delivery!.attempts, delivery!.lastStatus], ['delivered', 3, 204]);
      const ids = new Set(receiver.received.map((received) => received.headers['webhook-id']));
      assert.equal(receiver.received.length, 3);
      assert.equal(ids.size, 1, 'a retried delivery keeps its webhook-id');
      const verifier = new Webhook(added.secret);
      for (const received of receiver.received) verifier.verify(received.body, TestReceiver.headersOf(received));
      await executeAdminOperation(admin, 'webhooks.remove', { id: added.id });
      receiver.received.length = 0;
    });

    it('fails a delivery after the last retry', async () => {
      const added = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
      receiver.script.push(500, 500, 500, 500);
      assertSuccess(await postSession(h, { token }, formA(uniqueId('doomed'), ADA)));
      for (let attempt = 0; attempt < 4; attempt += 1) {
        assert.equal(await h.services.webhookDispatcher.runOnce(), 1);
        h.clock.advance(1);
      }
      assert.equal(await h.services.webhookDispatcher.runOnce(), 0);
      const [delivery] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform, limit: 1 });
      assert.deepEqual(
        [delivery!.status, delivery!.attempts, delivery!.lastStatus, delivery!.nextAttemptAt],
        ['failed', 4, 500, null],
      );
      await executeAdminOperation(admin, 'webhooks.remove', { id: added.id });
      receiver.received.length = 0;
    });

    it('disables the endpoint on 410: the delivery fails and later events queue nothing for it', async () => {
      const added = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
      receiver.script.push(410);
      assertSuccess(await postSession(h, { token }, formA(uniqueId('gone'), ADA)));
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1);
      const [endpoint] = (await executeAdminOperation(admin, 'webhooks.list', { platform })).filter(
        (e) => e.id === added.id,
      );
      assert.deepEqual([endpoint!.enabled, endpoint!.disabledReason], [false, 'gone']);
      const [delivery] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform, limit: 1 });
      assert.deepEqual([delivery!.status, delivery!.lastStatus], ['failed', 410]);
      assertSuccess(await postSession(h, { token }, formA(uniqueId('after-gone'), ADA)));
      assert.equal(await h.services.webhookDispatcher.runOnce(), 0);
      await executeAdminOperation(admin, 'webhooks.remove', { id: added.id });
      receiver.received.length = 0;
    });

    it('signs with both secrets for 24 h after a rotation', async () => {
      const added = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
      const rotated = await executeAdminOperation(admin, 'webhooks.rotate-secret', { id: added.id });
      assert.notEqual(rotated.secret, added.secret);
      assertSuccess(await postSession(h, { token }, formA(uniqueId('rotated'), ADA)));
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1);
      const received = receiver.received.at(-1)!;
      assert.equal(String(received.headers['webhook-signature']).split(' ').length, 2);
      new Webhook(added.secret).verify(received.body, TestReceiver.headersOf(received));
      new Webhook(rotated.secret).verify(received.body, TestReceiver.headersOf(received));
      await executeAdminOperation(admin, 'webhooks.remove', { id: added.id });
      receiver.received.length = 0;
    });

    it('never makes a request wait for a slow receiver (the dispatcher runs in the background)', async () => {
      const added = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
      receiver.delayMs = 1500;
      h.services.webhookDispatcher.start();
      try {
        const started = performance.now();
        assertSuccess(await postSession(h, { token }, formA(uniqueId('slow'), ADA)));
        assert.ok(performance.now() - started < 1000, 'answered before the receiver did');
        const deadline = Date.now() + 10_000;
        for (;;) {
          const [delivery] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform, limit: 1 });
          if (delivery?.status === 'delivered') break;
          assert.ok(Date.now() < deadline, 'delivered in the background, nudged after the commit');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await h.services.webhookDispatcher.stop();
        receiver.delayMs = 0;
        await executeAdminOperation(admin, 'webhooks.remove', { id: added.id });
        receiver.received.length = 0;
      }
    });

    it('refuses an unknown event type and a bad URL when adding', async () => {
      await assert.rejects(
        executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url, events: ['customer.exploded'] }),
        /invalid webhook endpoint/,
      );
      await assert.rejects(
        executeAdminOperation(admin, 'webhooks.add', { platform, url: 'ftp://example.com/' }),
        /invalid webhook endpoint/,
      );
    });

    it(
      'delivers each event once with two dispatchers on one database',
      { skip: backend.name !== 'postgres' && 'needs two processes’ worth of connections: PostgreSQL' },
      async () => {
        const added = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
        receiver.delayMs = 50;
        const second = new PostgresDatabase({ connectionString: databaseUrl!, poolMax: 5 });
        // The second "server": its own pool, store and dispatcher on the same database and key.
        const sealer = new AesGcmSealer(encryptionKeys(h.services.config));
        const sender = new UndiciWebhookSender({ production: false, allowPrivate: false });
        const other = new WebhookDispatcher(new SqlWebhookStore(second, sealer), sender, h.clock, {
          retryScheduleSeconds: [1],
          maxInFlight: 3,
        });
        try {
          for (let index = 0; index < 12; index += 1)
            assertSuccess(await postSession(h, { token }, formA(uniqueId('pair'), ADA)));
          let attempted = 0;
          while (attempted < 12) {
            const [a, b] = await Promise.all([h.services.webhookDispatcher.runOnce(), other.runOnce()]);
            assert.ok(a + b > 0, 'progress');
            attempted += a + b;
          }
          assert.equal(attempted, 12);
          const ids = receiver.received.map((received) => received.headers['webhook-id']);
          assert.equal(ids.length, 12);
          assert.equal(new Set(ids).size, 12, 'no event delivered twice');
        } finally {
          receiver.delayMs = 0;
          await sender.close();
          await second.close();
          await executeAdminOperation(admin, 'webhooks.remove', { id: added.id });
          receiver.received.length = 0;
        }
      },
    );
  });
}
