import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretSealer } from '../../ports/secret-sealer.js';
import { deriveKey, type EncryptionKey } from './encryption-keys.js';

/** Format version of sealed values: `v1.<key id>.<iv>.<ciphertext+tag>` (base64url parts). */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM sealing with the key id beside the ciphertext and a context bound as AAD. */
export class AesGcmSealer implements SecretSealer {
  private readonly keys = new Map<string, Buffer>();
  private readonly sealingKeyId: string;

  constructor(keys: readonly [EncryptionKey, ...EncryptionKey[]]) {
    for (const key of keys) this.keys.set(key.id, deriveKey(key, 'aes-256-gcm sealing'));
    this.sealingKeyId = keys[0].id;
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.sealingKeyId)!, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.sealingKeyId, iv.toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const [version, keyId, ivText, bodyText, extra] = sealed.split('.');
    if (version !== VERSION || !keyId || !ivText || !bodyText || extra !== undefined) {
      throw new Error('sealed value has an unknown format');
    }
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`sealed with encryption key ${keyId}, which this process does not have`);
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }
}
