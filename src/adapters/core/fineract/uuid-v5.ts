/**
 * Name-based UUIDs, version 5 (SHA-1), RFC 9562 §5.5: a stable `guid` for a Fineract account
 * that has no `externalId`. node:crypto has `randomUUID` but no name-based UUIDs, and the
 * algorithm is a hash and two bit fields: not worth a dependency.
 */
import { createHash } from 'node:crypto';

/** The URL namespace, RFC 9562 §6.6. */
export const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
