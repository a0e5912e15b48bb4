/**
 * The delegate reference IDs coregate makes for Fineract (docs/cores/fineract.md#sessions):
 * Fineract has no per-customer session for a service user, so the "session" is a sealed
 * token (AES-256-GCM through the SecretSealer) naming the Fineract client, the customer key
 * and the expiry, with 128 random bits so that no two are alike. The institution and the
 * tenant are bound as the seal's context: a token made for one institution does not open
 * for another.
 */
import { randomBytes } from 'node:crypto';
import { isPlainObject } from '../../../domain/json.js';
import type { SecretSealer } from '../../../ports/secret-sealer.js';

/** What a token carries. */
export interface FineractSession {
  /** Fineract's client id, as its decimal digits. */
  readonly clientId: string;
  readonly customerKey: string;
  readonly expiresAt: Date;
}

const NONCE_BYTES = 16;

/** The seal's context (its additional authenticated data). */
function sealContext(institution: string, tenant: string): string {
  return `fineract-session:${institution}:${tenant}`;
}

export function sealSession(
  sealer: SecretSealer,
  binding: { readonly institution: string; readonly tenant: string },
  session: FineractSession,
): string {
  const body = {
    n: randomBytes(NONCE_BYTES).toString('base64url'),
    c: session.clientId,
    k: session.customerKey,
    x: session.expiresAt.getTime(),
  };
  return sealer.seal(JSON.stringify(body), sealContext(binding.institution, binding.tenant));
}

/**
 * The session a token names, or `undefined` when it is forged, damaged, sealed for another
 * institution or tenant, sealed with a key this process no longer has, or expired at `now`.
 */
export function openSession(
  sealer: SecretSealer,
  binding: { readonly institution: string; readonly tenant: string },
  token: string,
  now: Date,
): FineractSession | undefined {
  let body: unknown;
  try {
    body = JSON.parse(sealer.open(token, sealContext(binding.institution, binding.tenant)));
  } catch {
    return undefined;
  }
  if (!isPlainObject(body)) return undefined;
  const { c: clientId, k: customerKey, x: expiresAt } = body;
  if (typeof clientId !== 'string' || typeof customerKey !== 'string' || typeof expiresAt !== 'number')
    return undefined;
  if (now.getTime() >= expiresAt) return undefined;
  return { clientId, customerKey, expiresAt: new Date(expiresAt) };
}
