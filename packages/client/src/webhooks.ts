/**
 * Verifies a webhook delivery (CONTRACT §9) by the Standard Webhooks rules, so it
 * accepts exactly what the `standardwebhooks` package accepts: the signed content is
 * `webhook-id.webhook-timestamp.body`, signed with HMAC-SHA256 keyed by the base64
 * secret after `whsec_`; `webhook-signature` holds one or more space-separated
 * `v1,<base64>` signatures (two while a secret rotates); the timestamp must be within
 * five minutes of now. Written on node:crypto to keep the client free of dependencies.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { HeadersLike } from './platform-types.js';

/** The events coregate sends (CONTRACT §9); the union stays open for types added later. */
export type WebhookEventType = 'customer.registered' | 'customer.reregistration_required' | 'customer.deregistered';

export interface WebhookEvent {
  readonly type: WebhookEventType | (string & {});
  /** ISO 8601 time of the change. */
  readonly timestamp: string;
  readonly data: {
    readonly institution: string;
    readonly platform: string;
    readonly customerId: string;
    /** Why, where one applies: `platform_request`, `operator_revoked`, … */
    readonly reason?: string;
    readonly [key: string]: unknown;
  };
}

/** A delivery that is not signed by coregate with this secret, is too old, or is not an event. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Headers as fetch (`Headers`), node:http (`IncomingHttpHeaders`) or a plain object give them. */
export type WebhookHeaders = HeadersLike | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** Accepted distance between the timestamp and now; default 300 s. */
  readonly toleranceSeconds?: number;
  /** The current time in ms; defaults to `Date.now`. */
  readonly now?: () => number;
}

const SECRET_PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as HeadersLike).get === 'function') return (headers as HeadersLike).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : (value as string | undefined);
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new WebhookVerificationError('the webhook secret is empty or not base64');
  return key;
}

/**
 * Checks the signature of a delivery and returns its event. `rawBody` must be the
 * bytes as received (parse after verifying, never re-serialise). Throws
 * `WebhookVerificationError` when the headers are missing, the timestamp is more than
 * five minutes away, or no signature matches.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');

  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  const sentAt = Number(timestamp);
  if (sentAt < nowSeconds - tolerance) throw new WebhookVerificationError('webhook timestamp too old');
  if (sentAt > nowSeconds + tolerance) throw new WebhookVerificationError('webhook timestamp too new');

  const body =
    typeof rawBody === 'string'
      ? Buffer.from(rawBody, 'utf8')
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.`).update(body).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no matching webhook signature');

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('the webhook body is not JSON');
  }
  if (event === null || typeof event !== 'object' || typeof (event as { type?: unknown }).type !== 'string') {
    throw new WebhookVerificationError('the webhook body is not an event');
  }
  return event as WebhookEvent;
}
