/**
 * The target policy holds at send time too: an endpoint added under another policy
 * (a development-mode command's `http://` URL, a loopback address) is not sent to by
 * a production server. The delivery fails at once with the policy's reason — not
 * retried on the whole schedule — and a warning says why; nothing reaches the receiver.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebhookDispatcher } from '../../../src/app/webhook-dispatcher.js';
import { AesGcmSealer } from '../../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKeys } from '../../../src/adapters/crypto/encryption-keys.js';
import { SqlWebhookStore } from '../../../src/adapters/store/sql-webhook-store.js';
import { UndiciWebhookSender } from '../../../src/adapters/webhooks/undici-webhook-sender.js';
import { executeAdminOperation, type AdminHandlers } from '../../../src/server/admin-operations.js';
import { BACKENDS } from '../../support/backends.js';
import type { Harness } from '../../support/harness.js';
import { ADA, assertSuccess, formA, postSession, uniqueId } from '../gateway/gateway-requests.js';
import type { TestReceiver } from './receiver.js';
import { openWebhookSuite, type WebhookSuite } from './webhook-suite.js';

const backend = BACKENDS[0]!;

describe(`webhook target policy at send time (${backend.name})`, () => {
  let h: Harness;
  let admin: AdminHandlers;
  let receiver: TestReceiver;

  let suite: WebhookSuite | undefined;

  before(async () => {
    // The endpoint is added as a development-mode command would: http:// on loopback.
    suite = await openWebhookSuite(backend, '1,1,1');
    ({ h, admin, receiver } = suite);
  });
  after(() => suite?.close());

  for (const allowPrivate of [false, true]) {
    it(`production (allowPrivate ${allowPrivate}) and an http:// endpoint: failed after one attempt, a warning, nothing sent`, async () => {
      const policy = { production: true, allowPrivate };
      const reason = /^refused: the URL must be https:\/\/ in production mode$/;
      const platform = uniqueId('strict');
      const added = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
      const token = await h.token(await h.client({ platform }));
      assertSuccess(await postSession(h, { token }, formA(uniqueId('c'), ADA)));

      const sender = new UndiciWebhookSender(policy);
      const warnings: string[] = [];
      const production = new WebhookDispatcher(
        new SqlWebhookStore(h.services.database, new AesGcmSealer(encryptionKeys(h.services.config))),
        sender,
        h.clock,
        {
          retryScheduleSeconds: [1, 1, 1],
          onRefused: (_delivery, why) => warnings.push(why),
        },
      );
      try {
        assert.equal(await production.runOnce(), 1);
        h.clock.advance(60);
        assert.equal(await production.runOnce(), 0, 'not retried');
      } finally {
        await sender.close();
      }
      assert.equal(receiver.received.length, 0);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, reason);
      const [delivery] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform });
      assert.equal(delivery!.status, 'failed');
      assert.equal(delivery!.attempts, 1);
      assert.equal(delivery!.nextAttemptAt, null);
      await executeAdminOperation(admin, 'webhooks.remove', { id: added.id });
    });
  }

  it('production with https:// to a loopback literal: refused as non-public', async () => {
    const sender = new UndiciWebhookSender({ production: true, allowPrivate: false });
    try {
      await assert.rejects(
        sender.send('https://[::7f00:1]:9/hooks', {}, '{}'),
        (error: { refused?: boolean; reason?: string }) =>
          error.refused === true && /^refused: non-public address/.test(error.reason ?? ''),
      );
    } finally {
      await sender.close();
    }
  });
});
