/**
 * The generated encryption key of an embedded installation, kept in the data
 * directory (mode 0600) so that restarts can open what earlier runs sealed.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readOwnFile } from '../store/owned-path.js';

function linkedKeyFile(path: string): Error {
  return new Error(
    `${path} is a symbolic link: the encryption key is read only from a regular file, so put the key file itself in the data dir (mode 0600)`,
  );
}

/**
 * Refuses a key file that is a symbolic link (it is never followed: docs/operations.md, "Threat
 * model") before anything in the data dir is created, locked or migrated, so the refusal leaves
 * the directory as it was. Absent is fine: the first start writes it.
 */
export function refuseLinkedKeyFile(dataDir: string): void {
  const path = join(dataDir, 'encryption.key');
  try {
    if (lstatSync(path).isSymbolicLink()) throw linkedKeyFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
}

/** Reads the key file, or writes a new one; a key file of another user is refused, never loaded. */
export function loadOrCreateKeyFile(dataDir: string): Buffer {
  const path = join(dataDir, 'encryption.key');
  try {
    const key = Buffer.from(readOwnFile(path).trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
    return key;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw linkedKeyFile(path);
    if (code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
