import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CredentialHasher } from '../../ports/credential-hasher.js';
import { deriveKey, type EncryptionKey } from './encryption-keys.js';

/** 32 random bytes: 256 bits of entropy per credential. */
const CREDENTIAL_BYTES = 32;

/**
 * HMAC-SHA-256 digests keyed with a sub-key of the encryption key: a stolen
 * database alone does not let anyone test guesses offline. Digests are
 * `<key id>.<base64url mac>` so older keys keep verifying after a rotation.
 */
export class HmacCredentialHasher implements CredentialHasher {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentKeyId: string;

  constructor(keys: readonly [EncryptionKey, ...EncryptionKey[]]) {
    for (const key of keys) this.keys.set(key.id, deriveKey(key, 'credential digest'));
    this.currentKeyId = keys[0].id;
  }

  generate(prefix: string): string {
    return prefix + randomBytes(CREDENTIAL_BYTES).toString('base64url');
  }

  digest(credential: string): string {
    return `${this.currentKeyId}.${this.mac(this.keys.get(this.currentKeyId)!, credential).toString('base64url')}`;
  }

  matches(credential: string, digest: string): boolean {
    const dot = digest.indexOf('.');
    const key = this.keys.get(digest.slice(0, dot));
    if (dot < 0 || !key) return false;
    const expected = Buffer.from(digest.slice(dot + 1), 'base64url');
    const actual = this.mac(key, credential);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  private mac(key: Buffer, credential: string): Buffer {
    return createHmac('sha256', key).update(credential, 'utf8').digest();
  }
}
