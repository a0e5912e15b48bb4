/**
 * Client credentials from an HTTP Basic header, per RFC 6749 §2.3.1: the id and
 * the secret are each form-urlencoded, joined by ":" and base64-encoded. Anything
 * that does not decode cleanly is a failed client authentication.
 */
import type { ClientCredentials } from '../app/authenticate-client.js';
import { invalidClient } from '../domain/errors.js';

const BASIC = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });
// eslint-disable-next-line no-control-regex -- control characters are what this matches: they are refused in credentials.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** `application/x-www-form-urlencoded` decoding of one value: "+" is a space, then percent-decoding. */
function formDecode(value: string): string {
  // Generated ids and secrets have neither: returned as they are (decoding them showed in a token request's profile).
  if (!value.includes('%') && !value.includes('+')) return value;
  return decodeURIComponent(value.replaceAll('+', ' '));
}

export function parseBasicCredentials(header: string | undefined): ClientCredentials {
  // No Basic header at all is what a client configured for client_secret_post sends (openid-client's
  // and simple-oauth2's default): the answer says how to authenticate instead. It reveals nothing about any client.
  if (header === undefined) throw invalidClient('no Authorization header');
  const match = BASIC.exec(header);
  if (!match) {
    throw invalidClient('Authorization is not Basic with base64 credentials');
  }
  const encoded = match[1]!;
  const bytes = Buffer.from(encoded, 'base64');
  // Buffer.from ignores stray characters and bad padding; a strict round trip does not.
  if (bytes.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
    throw invalidClient('Authorization credentials are not canonical base64');
  }
  let decoded: string;
  try {
    decoded = utf8.decode(bytes);
  } catch {
    throw invalidClient('Authorization credentials are not UTF-8');
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('Authorization credentials have no ":"');
  let clientId: string;
  let clientSecret: string;
  try {
    clientId = formDecode(decoded.slice(0, colon));
    clientSecret = formDecode(decoded.slice(colon + 1));
  } catch {
    throw invalidClient('Authorization credentials are not form-urlencoded');
  }
  if (clientId === '' || clientSecret === '') throw invalidClient('empty client_id or client_secret');
  // Ids and secrets are printable. A control character is no credential, and a NUL
  // would otherwise reach the client lookup, which PostgreSQL refuses (text cannot
  // hold NUL): a 500 instead of invalid_client.
  if (CONTROL_CHARACTER.test(clientId) || CONTROL_CHARACTER.test(clientSecret)) {
    throw invalidClient('control character in client_id or client_secret');
  }
  return { clientId, clientSecret };
}
