/**
 * The generated encryption key of an embedded installation, kept in the data
 * directory (mode 0600) so that restarts can open what earlier runs sealed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readOwnFile } from '../store/owned-path.js';

/** Reads the key file, or writes a new one; a key file of another user is refused, never loaded. */
export function loadOrCreateKeyFile(dataDir: string): Buffer {
  const path = join(dataDir, 'encryption.key');
  try {
    const key = Buffer.from(readOwnFile(path).trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
