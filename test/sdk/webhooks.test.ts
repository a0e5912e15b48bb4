/**
 * `verifyWebhook` against the reference implementation, the `standardwebhooks`
 * package (docs/behaviour.md#webhook-signatures): what it signs we accept, what we would sign
 * it accepts, and a changed body, timestamp, id or secret is refused by both.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '@coregate/client';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const otherSecret = `whsec_${randomBytes(24).toString('base64')}`;
const event = {
  type: 'customer.registered',
  timestamp: '2026-11-23T12:00:00.000Z',
  data: { institution: 'default', platform: 'p1', customerId: 'c-1' },
};
const body = JSON.stringify(event);

function signedHeaders(
  payload: string,
  options: { id?: string; at?: Date; with?: string } = {},
): Record<string, string> {
  const id = options.id ?? `msg_${randomBytes(8).toString('hex')}`;
  const at = options.at ?? new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(options.with ?? secret).sign(id, at, payload),
  };
}

/** The signature by the Standard Webhooks specification's recipe, written out here, for the reverse direction. */
function ourSignature(id: string, timestamp: string, payload: string, key: string): string {
  const raw = Buffer.from(key.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', raw).update(`${id}.${timestamp}.${payload}`).digest('base64')}`;
}

describe('verifyWebhook (Standard Webhooks)', () => {
  it('accepts a delivery signed by the standardwebhooks package and returns the parsed event', () => {
    assert.deepEqual(verifyWebhook(body, signedHeaders(body), secret), event);
    assert.deepEqual(
      verifyWebhook(Buffer.from(body), new Headers(signedHeaders(body)), secret),
      event,
      'Buffer body and fetch Headers',
    );
  });

  it('accepts what standardwebhooks accepts when signed by the recipe, and both agree on it', () => {
    const id = 'msg_reverse';
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': ourSignature(id, timestamp, body, secret),
    };
    assert.deepEqual(new Webhook(secret).verify(body, headers), event, 'the reference accepts it');
    assert.deepEqual(verifyWebhook(body, headers, secret), event, 'so do we');
  });

  it('accepts any of several space-separated signatures (a secret being rotated)', () => {
    const headers = signedHeaders(body);
    const other = signedHeaders(body, {
      id: headers['webhook-id']!,
      at: new Date(Number(headers['webhook-timestamp']) * 1000),
      with: otherSecret,
    });
    const both = { ...headers, 'webhook-signature': `${other['webhook-signature']} ${headers['webhook-signature']}` };
    assert.deepEqual(new Webhook(secret).verify(body, both), event, 'the reference accepts it');
    assert.deepEqual(verifyWebhook(body, both, secret), event);
    assert.deepEqual(verifyWebhook(body, both, otherSecret), event);
  });

  it('refuses a tampered body, id, timestamp or signature, and another secret — like the reference', () => {
    const headers = signedHeaders(body);
    const tampered: Array<[string, string, Record<string, string>, string]> = [
      ['body', body.replace('c-1', 'c-2'), headers, secret],
      ['id', body, { ...headers, 'webhook-id': 'msg_other' }, secret],
      [
        'timestamp',
        body,
        { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) },
        secret,
      ],
      [
        'signature',
        body,
        { ...headers, 'webhook-signature': headers['webhook-signature']!.replace('v1,', 'v1,A') },
        secret,
      ],
      [
        'version',
        body,
        { ...headers, 'webhook-signature': headers['webhook-signature']!.replace('v1,', 'v2,') },
        secret,
      ],
      ['secret', body, headers, otherSecret],
    ];
    for (const [what, payload, given, key] of tampered) {
      assert.throws(() => new Webhook(key).verify(payload, given), `the reference refuses a changed ${what}`);
      assert.throws(() => verifyWebhook(payload, given, key), WebhookVerificationError, `a changed ${what} is refused`);
    }
  });

  it('refuses timestamps more than five minutes away, in either direction, and missing headers', () => {
    for (const offsetSeconds of [-301, 301]) {
      const headers = signedHeaders(body, { at: new Date(Date.now() + offsetSeconds * 1000) });
      assert.throws(() => new Webhook(secret).verify(body, headers), `the reference refuses ${offsetSeconds} s`);
      assert.throws(() => verifyWebhook(body, headers, secret), /timestamp too (old|new)/);
    }
    const fourMinutesAgo = signedHeaders(body, { at: new Date(Date.now() - 240_000) });
    assert.deepEqual(verifyWebhook(body, fourMinutesAgo, secret), event, 'within the tolerance');
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const headers: Record<string, string> = signedHeaders(body);
      delete headers[name];
      assert.throws(() => verifyWebhook(body, headers, secret), /missing/);
    }
  });

  it('reads node:http headers (lower-case keys, arrays) and an injected clock', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const headers = signedHeaders(body, { at });
    assert.throws(() => verifyWebhook(body, headers, secret), /too old/);
    assert.deepEqual(
      verifyWebhook(body, { ...headers, 'webhook-signature': [headers['webhook-signature']!] }, secret, {
        now: () => at.getTime() + 1000,
      }),
      event,
    );
  });
});
