/**
 * Retention (docs/operations.md, "Retention"): delivered and failed webhook deliveries
 * and their events older than COREGATE_WEBHOOK_RETENTION_DAYS are deleted in small
 * batches, pending ones and newer ones never; an event no endpoint wants is not
 * written at all; refresh tokens are deleted once their whole chain expired.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RetentionPruner } from '../../../src/app/retention-pruner.js';
import { AesGcmSealer } from '../../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKeys } from '../../../src/adapters/crypto/encryption-keys.js';
import { SqlRefreshTokenStore } from '../../../src/adapters/store/sql-refresh-token-store.js';
import { SqlWebhookStore } from '../../../src/adapters/store/sql-webhook-store.js';
import { loadConfig } from '../../../src/config/config.js';
import { executeAdminOperation, type AdminHandlers } from '../../../src/server/admin-operations.js';
import { BACKENDS } from '../../support/backends.js';
import type { Harness } from '../../support/harness.js';
import { ADA, assertSuccess, formA, postSession, uniqueId } from '../gateway/gateway-requests.js';
import type { TestReceiver } from './receiver.js';
import { openWebhookSuite, type WebhookSuite } from './webhook-suite.js';

const DAY = 24 * 3600;

for (const backend of BACKENDS) {
  describe(`retention (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let admin: AdminHandlers;
    let receiver: TestReceiver;

    let suite: WebhookSuite | undefined;

    before(async () => {
      suite = await openWebhookSuite(backend, String(7 * DAY));
      ({ h, admin, receiver } = suite);
    });
    after(() => suite?.close());

    const count = async (sql: string, params: unknown[]) =>
      Number((await h.services.database.query<{ n: number }>(sql, params))[0]!.n);
    const eventsOf = (platform: string) =>
      count('select count(*)::int as n from webhook_events where platform = $1', [platform]);
    const deliveriesOf = (platform: string, status: string) =>
      count(
        'select count(*)::int as n from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.platform = $1 and d.status = $2',
        [platform, status],
      );

    it('defaults to 30 days', () => {
      assert.equal(loadConfig({}).webhookRetentionDays, 30);
      assert.equal(loadConfig({ COREGATE_WEBHOOK_RETENTION_DAYS: '7' }).webhookRetentionDays, 7);
      assert.throws(() => loadConfig({ COREGATE_WEBHOOK_RETENTION_DAYS: '0' }), /COREGATE_WEBHOOK_RETENTION_DAYS/);
    });

    it('writes no event for a platform without endpoints', async () => {
      const platform = uniqueId('quiet');
      const token = await h.token(await h.client({ platform }));
      assertSuccess(await postSession(h, { token }, formA(uniqueId('c'), ADA)));
      assert.equal(await eventsOf(platform), 0);
      // Nor for an endpoint that wants other types only.
      await executeAdminOperation(admin, 'webhooks.add', {
        platform,
        url: receiver.url,
        events: ['customer.deregistered'],
      });
      assertSuccess(await postSession(h, { token }, formA(uniqueId('c'), ADA)));
      assert.equal(await eventsOf(platform), 0);
    });

    it('prunes settled rows past the retention in small batches; pending and recent ones stay', async () => {
      const platform = uniqueId('kept');
      const token = await h.token(await h.client({ platform }));
      await executeAdminOperation(admin, 'webhooks.add', { platform, url: receiver.url });
      for (let index = 0; index < 3; index += 1)
        assertSuccess(await postSession(h, { token }, formA(uniqueId('c'), ADA)));
      receiver.script.push(204, 204, 500);
      assert.equal(await h.services.webhookDispatcher.runOnce(), 3);
      assert.deepEqual([await deliveriesOf(platform, 'delivered'), await deliveriesOf(platform, 'pending')], [2, 1]);

      // Past a 5-day retention; the pending one waits 7 days for its retry.
      h.clock.advance(6 * DAY);
      // A recent one, delivered: within the retention.
      assertSuccess(
        await postSession(h, { token: await h.token(await h.client({ platform })) }, formA(uniqueId('recent'), ADA)),
      );
      assert.equal(await h.services.webhookDispatcher.runOnce(), 1);

      const database = h.services.database;
      const pruner = new RetentionPruner(
        new SqlWebhookStore(database, new AesGcmSealer(encryptionKeys(h.services.config))),
        new SqlRefreshTokenStore(database),
        h.clock,
        {
          webhookRetentionDays: 5,
          batchSize: 1,
          pauseMs: 0,
        },
      );
      const deleted = await pruner.runOnce();
      assert.equal(deleted.webhookRows, 4, 'two old delivered deliveries and their two events');
      assert.equal(await deliveriesOf(platform, 'delivered'), 1, 'the recent one');
      assert.equal(await deliveriesOf(platform, 'pending'), 1, 'pending deliveries are never pruned, however old');
      assert.equal(await eventsOf(platform), 2, "the pending delivery's event and the recent one");
      assert.deepEqual(await pruner.runOnce(), { webhookRows: 0, refreshTokens: 0 });
    });

    it('deletes refresh tokens of chains that all expired, keeping a chain with a live token whole', async () => {
      const client = await h.client({ platform: uniqueId('rt'), grants: ['client_credentials', 'refresh_token'] });
      const store = new SqlRefreshTokenStore(h.services.database);
      const now = h.clock.now().getTime();
      const token = (digest: string, chainId: string, expiresInSeconds: number) =>
        store.insert({
          digest: `${digest}-${now}`,
          clientId: client.id,
          chainId: `${chainId}-${now}`,
          scope: 'core/main',
          issuedAt: new Date(now - 90 * DAY * 1000),
          expiresAt: new Date(now + expiresInSeconds * 1000),
        });
      await token('dead-1', 'dead', -2 * DAY);
      await token('dead-2', 'dead', -DAY);
      await token('used-old', 'live', -DAY);
      await token('live', 'live', DAY);
      const pruner = new RetentionPruner({ pruneSettled: async () => 0 }, store, h.clock, {
        webhookRetentionDays: 30,
        batchSize: 1,
        pauseMs: 0,
      });
      assert.equal((await pruner.runOnce()).refreshTokens, 2);
      const left = await h.services.database.query<{ digest: string }>(
        'select digest from refresh_tokens where client_id = $1 order by digest',
        [client.id],
      );
      assert.deepEqual(
        left.map((row) => row.digest.replace(`-${now}`, '')),
        ['live', 'used-old'],
      );
    });
  });
}
