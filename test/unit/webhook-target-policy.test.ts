/**
 * Where webhooks may go (CONTRACT §9): in production mode `https://` only and no
 * loopback, private or link-local target — refused when the endpoint is added
 * and again at connection time, on the address connected to (a name re-pointed
 * after the add gains nothing) — unless COREGATE_WEBHOOK_ALLOW_PRIVATE=true.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress, WebhookTargetPolicy } from '../../src/adapters/webhooks/target-policy.js';
import { UndiciWebhookSender } from '../../src/adapters/webhooks/undici-webhook-sender.js';
import { WebhookSendFailed } from '../../src/ports/webhook-sender.js';

const resolvesTo = (addresses: Record<string, string[]>) => async (host: string) => addresses[host] ?? [];

describe('webhook target policy', () => {
  it('tells public addresses from loopback, private, link-local and the like', () => {
    for (const address of ['93.184.216.34', '2606:4700::1111', '8.8.8.8']) assert.ok(isPublicAddress(address), address);
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', 'not an address']) {
      assert.ok(!isPublicAddress(address), address);
    }
  });

  it('in production mode refuses http:// and non-public targets at add time', async () => {
    const policy = new WebhookTargetPolicy({ production: true, allowPrivate: false }, resolvesTo({ 'hooks.example.com': ['93.184.216.34'], 'internal.example.com': ['10.0.0.7'], 'mixed.example.com': ['93.184.216.34', '127.0.0.1'] }));
    assert.equal(await policy.problem('https://hooks.example.com/coregate'), undefined);
    assert.match((await policy.problem('http://hooks.example.com/coregate'))!, /https/);
    assert.match((await policy.problem('https://internal.example.com/'))!, /private/);
    assert.match((await policy.problem('https://mixed.example.com/'))!, /private/);
    assert.match((await policy.problem('https://127.0.0.1/'))!, /private/);
    assert.match((await policy.problem('https://[::1]/'))!, /private/);
    assert.match((await policy.problem('https://169.254.169.254/latest'))!, /private/);
    assert.match((await policy.problem('https://nowhere.example.com/'))!, /resolve/);
  });

  it('lets COREGATE_WEBHOOK_ALLOW_PRIVATE through private targets, never http:// in production', async () => {
    const policy = new WebhookTargetPolicy({ production: true, allowPrivate: true }, resolvesTo({ 'internal.example.com': ['10.0.0.7'] }));
    assert.equal(await policy.problem('https://internal.example.com/'), undefined);
    assert.match((await policy.problem('http://internal.example.com/'))!, /https/);
  });

  it('outside production accepts loopback http:// receivers (development)', async () => {
    const policy = new WebhookTargetPolicy({ production: false, allowPrivate: false });
    assert.equal(await policy.problem('http://127.0.0.1:9000/hooks'), undefined);
    assert.match((await policy.problem('ftp://example.com/'))!, /http/);
    assert.match((await policy.problem('https://user:pw@example.com/'))!, /credentials/);
  });

  it('refuses a non-public address at connection time too (DNS rebinding)', async () => {
    const sender = new UndiciWebhookSender({ production: true, allowPrivate: false });
    try {
      // `localhost` resolves to loopback: refused by the lookup hook before any connection is made.
      await assert.rejects(sender.send('https://localhost:9/hooks', {}, '{}'), (error: unknown) => error instanceof WebhookSendFailed && /non-public/.test(error.reason));
      await assert.rejects(sender.send('https://127.0.0.1:9/hooks', {}, '{}'), (error: unknown) => error instanceof WebhookSendFailed && /non-public/.test(error.reason));
    } finally {
      await sender.close();
    }
  });
});
