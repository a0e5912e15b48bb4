/**
 * Webhook operations for the operator: `webhooks enable` sends again to an endpoint
 * a 410 disabled (same id, same secret), `webhooks disable` stops it and fails its
 * pending deliveries; `webhooks deliveries` says why each failed; disabling by 410
 * and by the operator are audit rows; `webhooks.policy` tells which policy applied.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { adminOperations, executeAdminOperation, type AdminHandlers } from '../../../src/server/admin-operations.js';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import type { Harness } from '../../support/harness.js';
import { ADA, assertSuccess, formA, postSession, uniqueId } from '../gateway/gateway-requests.js';
import { TestReceiver } from './receiver.js';
import { openWebhookSuite, type WebhookSuite } from './webhook-suite.js';

describe(`webhook operations (${QUICKEST_BACKEND.name})`, { skip: QUICKEST_BACKEND.skip }, () => {
  let h: Harness;
  let admin: AdminHandlers;
  let receiver: TestReceiver;

  let suite: WebhookSuite | undefined;

  before(async () => {
    suite = await openWebhookSuite(QUICKEST_BACKEND, '1,1');
    ({ h, admin, receiver } = suite);
  });
  after(() => suite?.close());

  async function auditRows(type: string, platform: string) {
    return h.services.auditReader.list({ type, platform, limit: 10 });
  }

  it('after a 410: an audit row, then enable sends to the same endpoint with the same secret', async () => {
    const platform = uniqueId('gone');
    const token = await h.token(await h.client({ platform }));
    const added = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
    receiver.script.push(410);
    assertSuccess(await postSession(h, { token }, formA(uniqueId('c'), ADA)));
    assert.equal(await h.services.webhookDispatcher.runOnce(), 1);

    const [gone] = await auditRows('webhook.disabled', platform);
    assert.ok(gone, 'disabling by 410 is an audit row');
    assert.deepEqual([gone.actor, gone.outcome, gone.platform, gone.reason], ['client', 'success', platform, added.id]);

    const enabled = await executeAdminOperation(admin, 'webhooks.enable', { id: added.id });
    assert.deepEqual([enabled.id, enabled.enabled, enabled.disabledReason], [added.id, true, null]);
    const [audited] = await auditRows('webhook.enabled', platform);
    assert.deepEqual([audited?.actor, audited?.platform, audited?.reason], ['operator', platform, added.id]);

    assertSuccess(await postSession(h, { token }, formA(uniqueId('c'), ADA)));
    assert.equal(await h.services.webhookDispatcher.runOnce(), 1);
    const received = receiver.received.at(-1)!;
    new Webhook(added.secret).verify(received.body, TestReceiver.headersOf(received));
    const deliveries = await executeAdminOperation(admin, 'webhooks.deliveries', { platform });
    assert.deepEqual(
      deliveries.map((d) => [d.status, d.lastStatus, d.reason]),
      [
        ['delivered', 204, null],
        ['failed', 410, 'the receiver answered 410 Gone: endpoint disabled'],
      ],
    );
    receiver.received.length = 0;
  });

  it('disable fails the pending deliveries with the reason, audited; deliveries shows why each failed', async () => {
    const platform = uniqueId('off');
    const token = await h.token(await h.client({ platform }));
    const added = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
    receiver.script.push(500);
    assertSuccess(await postSession(h, { token }, formA(uniqueId('c'), ADA)));
    assert.equal(await h.services.webhookDispatcher.runOnce(), 1);
    let [delivery] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform });
    assert.deepEqual([delivery!.status, delivery!.reason], ['pending', 'the receiver answered 500']);

    const disabled = await executeAdminOperation(admin, 'webhooks.disable', { id: added.id });
    assert.deepEqual([disabled.enabled, disabled.disabledReason], [false, 'operator']);
    [delivery] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform });
    assert.deepEqual([delivery!.status, delivery!.reason], ['failed', 'endpoint disabled (operator)']);
    const [audited] = await auditRows('webhook.disabled', platform);
    assert.deepEqual([audited?.actor, audited?.platform, audited?.reason], ['operator', platform, added.id]);
    h.clock.advance(5);
    assert.equal(await h.services.webhookDispatcher.runOnce(), 0, 'nothing sent to a disabled endpoint');
    await assert.rejects(executeAdminOperation(admin, 'webhooks.enable', { id: 'wh_nope' }), /no webhook endpoint/);
    receiver.received.length = 0;
  });

  it('webhooks.policy: the policy applied, and whether a server applies it', async () => {
    assert.deepEqual(await executeAdminOperation(admin, 'webhooks.policy', {}), {
      production: false,
      allowPrivate: false,
      server: false,
    });
    assert.deepEqual(
      await executeAdminOperation(adminOperations(h.services, { server: true }), 'webhooks.policy', {}),
      { production: false, allowPrivate: false, server: true },
    );
  });
});
