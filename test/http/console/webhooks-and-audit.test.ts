/**
 * The console's Webhooks and Audit pages (docs/operations.md#console): `Retry` puts a failed
 * delivery back in the queue, audited with the operator's name, and refuses one that is not
 * failed; the audit log filters by actor and pages by the last event's id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { executeAdminOperation, type AdminHandlers } from '../../../src/server/admin-operations.js';
import { BACKENDS } from '../../support/backends.js';
import type { Harness } from '../../support/harness.js';
import { ADA, assertSuccess, formA, postSession, uniqueId } from '../gateway/gateway-requests.js';
import type { TestReceiver } from '../webhooks/receiver.js';
import { openWebhookSuite, type WebhookSuite } from '../webhooks/webhook-suite.js';
import { consoleApp, formToken, getPage, postForm, signIn } from './console-requests.js';

for (const backend of BACKENDS) {
  describe(`operator console: webhook retry and audit paging (${backend.name})`, { skip: backend.skip }, () => {
    let suite: WebhookSuite | undefined;
    let h: Harness;
    let admin: AdminHandlers;
    let receiver: TestReceiver;
    let app: FastifyInstance;
    before(async () => {
      suite = await openWebhookSuite(backend, '1,1');
      ({ h, admin, receiver } = suite);
      ({ app } = await consoleApp(h));
    });
    after(async () => {
      await app?.close();
      await suite?.close();
    });

    it('Retry sends a failed delivery again and is audited; a delivery that did not fail is refused', async () => {
      const platform = uniqueId('hooks');
      const token = await h.token(await h.client({ platform }));
      const endpoint = await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
      receiver.script.push(410);
      assertSuccess(await postSession(h, { token }, formA(uniqueId('c'), ADA)));
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1);
      const [failed] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform });
      assert.equal(failed?.status, 'failed');

      const cookie = await signIn(h, app);
      const page = (await getPage(app, '/console/webhooks', cookie)).body;
      assert.ok(page.includes(`/console/webhooks/deliveries/${failed.id}/retry`), 'a Retry button on the failed row');
      const csrf = formToken(page);

      const disabled = await postForm(
        app,
        `/console/webhooks/deliveries/${failed.id}/retry`,
        { _csrf: csrf },
        { cookie },
      );
      assert.equal(disabled.statusCode, 404, 'its endpoint is disabled (by the 410)');
      assert.match(disabled.body, /enable the endpoint first/);

      await executeAdminOperation(admin, 'webhooks.enable', { id: endpoint.id });
      const retried = await postForm(
        app,
        `/console/webhooks/deliveries/${failed.id}/retry`,
        { _csrf: csrf },
        { cookie },
      );
      assert.equal(retried.statusCode, 200, retried.body);
      assert.match(retried.body, /queued again/);
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1);
      const [delivered] = await executeAdminOperation(admin, 'webhooks.deliveries', { platform });
      assert.deepEqual([delivered?.id, delivered?.status], [failed.id, 'delivered']);

      const [row] = await h.services.auditReader.list({ type: 'webhook.delivery_retried', limit: 1 });
      assert.deepEqual([row?.actor, row?.reason], ['operator:alice', failed.id]);
      const again = await postForm(app, `/console/webhooks/deliveries/${failed.id}/retry`, { _csrf: csrf }, { cookie });
      assert.equal(again.statusCode, 404, 'a delivered delivery is not sent again');
    });

    it('the audit log filters by actor and pages by the last event id', async () => {
      const cookie = await signIn(h, app, 'pager');
      const csrf = formToken((await getPage(app, '/console/keys', cookie)).body);
      for (let i = 0; i < 3; i += 1) await postForm(app, '/console/keys/rotate', { _csrf: csrf }, { cookie });
      const mine = await h.services.auditReader.list({ actor: 'operator:pager', limit: 100 });
      assert.deepEqual(
        mine.map((event) => event.type),
        ['key.rotated', 'key.rotated', 'key.rotated', 'console.signed_in'],
      );
      const first = await h.services.auditReader.list({ actor: 'operator:pager', limit: 2 });
      const next = await h.services.auditReader.list({ actor: 'operator:pager', limit: 2, before: first.at(-1)!.id });
      assert.deepEqual(
        [...first, ...next].map((event) => event.id),
        mine.map((event) => event.id),
        'two pages are the whole listing, in order',
      );

      const filtered = await postForm(
        app,
        '/console/audit',
        { actor: 'operator:pager', type: 'key.rotated', _csrf: csrf },
        { cookie },
      );
      assert.equal(filtered.statusCode, 200);
      assert.equal(filtered.body.match(/<td>\s*key\.rotated\s*<\/td>/g)?.length, 3);
      assert.ok(!filtered.body.includes('console.signed_in</td>'));
      const bad = await postForm(app, '/console/audit', { actor: 'root', _csrf: csrf }, { cookie });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /id="field-actor-error">\s*must be client, operator or operator:NAME/);
    });
  });
}
