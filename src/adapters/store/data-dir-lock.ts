/**
 * Exclusive ownership of an embedded data directory. PGlite is one process's
 * database: a second process opening the same files would corrupt them. The
 * holder writes a lock file with its pid (created atomically with `wx`) and, for
 * a server, the admin socket through which other commands reach the database.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface LockHolder {
  readonly pid: number;
  readonly role: 'server' | 'command';
  /** Unix socket of a server's admin channel. */
  readonly adminSocket?: string;
}

export class DataDirBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(`the embedded database in ${dataDir} is in use by process ${holder.pid} (${holder.role})`);
  }
}

export interface DataDirLock {
  release(): void;
}

export function lockFilePath(dataDir: string): string {
  return join(dataDir, 'coregate.lock');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live holder of the data directory, if any (a lock left by a dead process is ignored). */
export function currentHolder(dataDir: string): LockHolder | undefined {
  let holder: LockHolder;
  try {
    holder = JSON.parse(readFileSync(lockFilePath(dataDir), 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
  return Number.isInteger(holder.pid) && holder.pid !== process.pid && isAlive(holder.pid) ? holder : undefined;
}

/** Takes the data directory or throws {@link DataDirBusy}. */
export function acquireDataDirLock(dataDir: string, holder: Omit<LockHolder, 'pid'>): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = lockFilePath(dataDir);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const live = currentHolder(dataDir);
      if (live) throw new DataDirBusy(dataDir, live);
      // Left behind by a process that died: take it over.
      rmSync(path, { force: true });
      continue;
    }
    writeSync(fd, JSON.stringify({ pid: process.pid, ...holder }));
    closeSync(fd);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      },
    };
  }
  throw new Error(`could not lock ${dataDir}: the lock file keeps reappearing`);
}
