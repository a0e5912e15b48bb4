/**
 * What a client may register as its JWK Set (RFC 7517): public keys only, of the kinds
 * the token endpoint verifies. A private member in a key means a private key was
 * pasted by mistake: it is refused, never stored.
 */
import type { ClientJwks, TokenEndpointAuthMethod } from './client.js';

/** JWK members that only private (or symmetric) keys have (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const KEY_TYPES = new Set(['OKP', 'EC', 'RSA']);
/** A client's JWKS stays small: a few keys during a rotation. */
const MAX_KEYS = 20;

/** Why `value` cannot be a client's JWKS, or `undefined` when it can. */
export function clientJwksProblem(value: unknown, method: TokenEndpointAuthMethod): string | undefined {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { keys?: unknown }).keys))
    return 'must be a JWK Set: {"keys": [...]}';
  const keys = (value as { keys: unknown[] }).keys;
  if (keys.length === 0) return 'holds no key';
  if (keys.length > MAX_KEYS) return `holds more than ${MAX_KEYS} keys`;
  for (const [index, key] of keys.entries()) {
    if (typeof key !== 'object' || key === null || Array.isArray(key)) return `key ${index} is not a JWK object`;
    const jwk = key as Record<string, unknown>;
    const privateMember = PRIVATE_MEMBERS.find((member) => member in jwk);
    if (privateMember !== undefined)
      return `key ${index} is a private key (it has "${privateMember}"): register the public key only`;
    if (typeof jwk['kty'] !== 'string' || !KEY_TYPES.has(jwk['kty']))
      return `key ${index} has no supported "kty" (OKP, EC or RSA)`;
    if (jwk['use'] !== undefined && jwk['use'] !== 'sig')
      return `key ${index} is not a signing key ("use": ${JSON.stringify(jwk['use'])})`;
    if (method === 'self_signed_tls_client_auth' && !(Array.isArray(jwk['x5c']) && typeof jwk['x5c'][0] === 'string')) {
      return `key ${index} has no certificate ("x5c"), which self_signed_tls_client_auth needs`;
    }
  }
  return undefined;
}

/** Only the members a verifier needs are stored: anything else a tool added stays out. */
export function publicJwks(value: ClientJwks): ClientJwks {
  const PUBLIC_MEMBERS = ['kty', 'kid', 'alg', 'use', 'crv', 'x', 'y', 'n', 'e', 'x5c', 'x5t#S256'];
  return {
    keys: value.keys.map((key) =>
      Object.fromEntries(
        PUBLIC_MEMBERS.filter((member) => key[member] !== undefined).map((member) => [member, key[member]]),
      ),
    ),
  };
}
