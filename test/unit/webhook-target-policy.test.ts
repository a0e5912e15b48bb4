/**
 * Where webhooks may go (docs/behaviour.md#webhook-targets): in production mode `https://` only
 * and no loopback, private or link-local target — refused when the endpoint is added and again
 * at connection time, on the address connected to (a name re-pointed after the add gains
 * nothing) — unless COREGATE_WEBHOOK_ALLOW_PRIVATE=true.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isPublicAddress, WebhookTargetPolicy } from '../../src/adapters/webhooks/target-policy.js';
import { UndiciWebhookSender } from '../../src/adapters/webhooks/undici-webhook-sender.js';
import { WebhookSendFailed } from '../../src/ports/webhook-sender.js';

const resolvesTo = (addresses: Record<string, string[]>) => async (host: string) => addresses[host] ?? [];

describe('webhook target policy', () => {
  it('tells public addresses from loopback, private, link-local and the like', () => {
    for (const address of ['93.184.216.34', '2606:4700::1111', '8.8.8.8']) assert.ok(isPublicAddress(address), address);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      'not an address',
    ]) {
      assert.ok(!isPublicAddress(address), address);
    }
  });

  it('in production mode refuses http:// and non-public targets at add time', async () => {
    const policy = new WebhookTargetPolicy(
      { production: true, allowPrivate: false },
      resolvesTo({
        'hooks.example.com': ['93.184.216.34'],
        'internal.example.com': ['10.0.0.7'],
        'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
      }),
    );
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
    const policy = new WebhookTargetPolicy(
      { production: true, allowPrivate: true },
      resolvesTo({ 'internal.example.com': ['10.0.0.7'] }),
    );
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
      await assert.rejects(
        sender.send('https://localhost:9/hooks', {}, '{}'),
        (error: unknown) => error instanceof WebhookSendFailed && /non-public/.test(error.reason),
      );
      await assert.rejects(
        sender.send('https://127.0.0.1:9/hooks', {}, '{}'),
        (error: unknown) => error instanceof WebhookSendFailed && /non-public/.test(error.reason),
      );
    } finally {
      await sender.close();
    }
  });

  it('refuses [::7f00:1], [::127.0.0.1] and [::a9fe:a9fe] like the addresses they embed, at add time and at connection time', async () => {
    const policy = new WebhookTargetPolicy({ production: true, allowPrivate: false });
    for (const url of [
      'https://[::7f00:1]/',
      'https://[::127.0.0.1]/',
      'https://[::a9fe:a9fe]/latest',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[64:ff9b::a9fe:a9fe]/',
    ]) {
      assert.match((await policy.problem(url))!, /private/, url);
    }
    const sender = new UndiciWebhookSender({ production: true, allowPrivate: false });
    try {
      await assert.rejects(
        sender.send('https://[::7f00:1]:9/hooks', {}, '{}'),
        (error: unknown) => error instanceof WebhookSendFailed && /non-public/.test(error.reason),
      );
    } finally {
      await sender.close();
    }
  });
});

/** Any IPv4 address, as four bytes and dotted text. */
const ipv4 = fc
  .tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((bytes) => ({ bytes, text: bytes.join('.') }));
/** Non-public IPv4 addresses in particular (loopback, private, link-local, CGNAT, this network), not left to chance. */
const privateIpv4 = fc
  .oneof(
    fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
    fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
    fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
    fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
    fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
    fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
    fc.tuple(fc.constant(0), fc.nat(255), fc.nat(255), fc.nat(255)),
  )
  .map((bytes) => ({ bytes, text: bytes.join('.') }));

const hex = (high: number, low: number) => ((high << 8) | low).toString(16);

/** The IPv6 spellings that carry an IPv4 address inside. */
function embeddings({ bytes, text }: { bytes: number[]; text: string }): Record<string, string> {
  const tail = `${hex(bytes[0]!, bytes[1]!)}:${hex(bytes[2]!, bytes[3]!)}`;
  return {
    compatibleDotted: `::${text}`,
    compatibleHex: `::${tail}`,
    mapped: `::ffff:${text}`,
    mappedHex: `::ffff:${tail}`,
    translated: `::ffff:0:${tail}`,
    nat64: `64:ff9b::${tail}`,
    nat64Local: `64:ff9b:1::${tail}`,
  };
}

describe('webhook target policy: IPv6 forms embedding an IPv4 address (property)', () => {
  it('every embedding of a non-public IPv4 address is refused, as an address and as a URL host', async () => {
    const policy = new WebhookTargetPolicy({ production: true, allowPrivate: false });
    await fc.assert(
      fc.asyncProperty(fc.oneof(privateIpv4, ipv4), async (address) => {
        if (isPublicAddress(address.text)) return;
        for (const [form, embedded] of Object.entries(embeddings(address))) {
          assert.equal(isPublicAddress(embedded), false, `${form} ${embedded}`);
          assert.match(
            (await policy.problem(`https://[${embedded}]/hooks`)) ?? 'accepted',
            /private/,
            `${form} ${embedded}`,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('an IPv4-mapped address is judged exactly as the IPv4 address; the deprecated compatible form never counts as public', () => {
    fc.assert(
      fc.property(ipv4, (address) => {
        const forms = embeddings(address);
        assert.equal(isPublicAddress(forms.mapped!), isPublicAddress(address.text));
        assert.equal(isPublicAddress(forms.compatibleHex!), false);
      }),
      { numRuns: 500 },
    );
  });
});
