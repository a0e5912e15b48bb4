/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-signature`
 * is `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's
 * base64 after `whsec_`; several space-separated while two secrets are valid.
 * Ours only to sign: the tests verify with the `standardwebhooks` package.
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks specification asks for 24 to 64). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt: the id stays the same across retries, the timestamp is the attempt's. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => webhookSignature(secret, id, timestamp, body)).join(' '),
  };
}
