/**
 * The encryption keys of this installation. The first key seals new values; all
 * of them open old ones, so a key can be rotated without re-encrypting first.
 * Each key is named by a short fingerprint stored beside every sealed value.
 */
import { createHash, hkdfSync } from 'node:crypto';
import type { Config } from '../../config/config.js';
import { loadOrCreateKeyFile, refuseLinkedKeyFile } from './key-file.js';

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

/** Whether this installation reads (or makes) the data dir's generated key file. */
function usesKeyFile(config: Config): boolean {
  return config.databaseUrl === undefined && !config.production;
}

/** Refuses a symbolically linked key file before the data dir is touched (see `key-file.ts`). */
export function checkKeyFileBeforeOpening(config: Config): void {
  if (usesKeyFile(config)) refuseLinkedKeyFile(config.dataDir);
}

/**
 * The installation's keys from configuration: the configured key first (it seals),
 * then the data dir's generated key and the previous keys (they still open old
 * values and verify old digests). Production takes its keys from configuration
 * alone: no key file is read or written (a key generated on the server's disk is
 * not a bank's key); an embedded installation moved to production names its old
 * generated key in COREGATE_PREVIOUS_ENCRYPTION_KEYS.
 */
export function encryptionKeys(config: Config): [EncryptionKey, ...EncryptionKey[]] {
  const keys: EncryptionKey[] = [];
  if (config.encryptionKey) keys.push(encryptionKey(config.encryptionKey));
  if (usesKeyFile(config)) {
    const generated = encryptionKey(loadOrCreateKeyFile(config.dataDir));
    if (!keys.some((key) => key.id === generated.id)) keys.push(generated);
  }
  for (const material of config.previousEncryptionKeys) {
    const previous = encryptionKey(material);
    if (!keys.some((key) => key.id === previous.id)) keys.push(previous);
  }
  if (keys.length === 0) throw new Error('no encryption key: set COREGATE_ENCRYPTION_KEY');
  return keys as [EncryptionKey, ...EncryptionKey[]];
}
