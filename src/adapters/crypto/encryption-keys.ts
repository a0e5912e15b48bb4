/**
 * The encryption keys of this installation. The first key seals new values; all
 * of them open old ones, so a key can be rotated without re-encrypting first.
 * Each key is named by a short fingerprint stored beside every sealed value.
 */
import { createHash, hkdfSync } from 'node:crypto';

export interface EncryptionKey {
  readonly id: string;
  readonly material: Buffer;
}

export function encryptionKey(material: Buffer): EncryptionKey {
  if (material.length !== 32) throw new Error('an encryption key is 32 bytes');
  const id = createHash('sha256').update('coregate key id').update(material).digest('hex').slice(0, 12);
  return { id, material };
}

/** A sub-key for one purpose, so the same master key never serves two algorithms. */
export function deriveKey(key: EncryptionKey, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key.material, Buffer.alloc(0), `coregate ${purpose}`, 32));
}
