/**
 * Exclusive ownership of an embedded data directory. PGlite is one process's
 * database: a second process opening the same files would corrupt them. The
 * holder writes a lock file with its pid and, for a server, the admin socket
 * through which other commands reach the database.
 *
 * The lock file is written in full under a private name and then hard-linked into
 * place: link(2) creates it atomically or fails because it exists, so no process
 * ever reads a half-written lock and mistakes it for a stale one. Removing a stale
 * lock (its process died) is a read-then-delete, so it is done only while holding
 * a second, short-lived takeover lock: two processes can never both delete what
 * they judged stale and both go on to take the data dir.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { readOwnFile, requireOwnDirectory } from './owned-path.js';

export interface LockHolder {
  readonly pid: number;
  readonly role: 'server' | 'command';
  /** Unix socket of a server's admin channel. */
  readonly adminSocket?: string;
}

/** A path as the operator typed it, most likely: relative to the working directory when inside it. */
function shownPath(path: string): string {
  const inside = relative(process.cwd(), path);
  return inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? path : `./${inside}`;
}

export class DataDirBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    // What to do about it, in one line: a second `serve` is a mistake; a CLI command goes through the server.
    const shown = shownPath(dataDir);
    super(
      holder.role === 'server'
        ? `the data dir ${shown} is held by coregate pid ${holder.pid}: stop it, or use the CLI while it runs`
        : `the data dir ${shown} is held by coregate pid ${holder.pid} (a ${holder.role}): wait for it to finish, or stop it`,
    );
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

/**
 * The live holder of the data directory, if any (a lock left by a dead process is ignored).
 * A lock file of another user is refused (`owned-path.ts`), never believed.
 */
export function currentHolder(dataDir: string): LockHolder | undefined {
  let text: string;
  try {
    text = readOwnFile(lockFilePath(dataDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let holder: LockHolder;
  try {
    holder = JSON.parse(text) as LockHolder;
  } catch {
    return undefined;
  }
  return Number.isInteger(holder.pid) && holder.pid !== process.pid && isAlive(holder.pid) ? holder : undefined;
}

/** Creates `path` as a link to the complete file `draft`; false if `path` exists. */
function tryLink(draft: string, path: string): boolean {
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Deletes the lock file if its holder is dead, under the takeover lock; returns
 * without deleting anything when another process is taking over at the same time.
 */
function removeStaleLock(dataDir: string, draft: string): void {
  const path = lockFilePath(dataDir);
  const takeover = `${path}.takeover`;
  if (!tryLink(draft, takeover)) {
    // Held for a few microseconds by another process removing the stale lock;
    // left behind only if that process died in between.
    let taker: number | undefined;
    try {
      taker = (JSON.parse(readOwnFile(takeover)) as LockHolder).pid;
    } catch {
      return;
    }
    // A takeover file naming this process's pid was left by an earlier process that had it.
    if (taker === process.pid || !isAlive(taker)) rmSync(takeover, { force: true });
    else pause(5);
    return;
  }
  try {
    // Re-checked under the takeover lock: only a taker deletes the lock file, so
    // what is judged stale here is still what gets deleted.
    if (currentHolder(dataDir) === undefined) rmSync(path, { force: true });
  } finally {
    rmSync(takeover, { force: true });
  }
}

/**
 * Takes the data directory or throws {@link DataDirBusy}; a data directory of another
 * user is refused before anything is written into it (`owned-path.ts`).
 */
export function acquireDataDirLock(dataDir: string, holder: Omit<LockHolder, 'pid'>): DataDirLock {
  if (!requireOwnDirectory(dataDir)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // Made by another user between the look and the mkdir: refused all the same.
    requireOwnDirectory(dataDir);
  }
  // Its owner's alone, like PostgreSQL's: an existing dir made 0755 by hand is closed too
  // (the admin socket may live in it).
  chmodSync(dataDir, 0o700);
  const path = lockFilePath(dataDir);
  const draft = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, JSON.stringify({ pid: process.pid, ...holder }), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (tryLink(draft, path)) {
        let released = false;
        return {
          release() {
            if (released) return;
            released = true;
            rmSync(path, { force: true });
          },
        };
      }
      const live = currentHolder(dataDir);
      if (live) throw new DataDirBusy(dataDir, live);
      // Left behind by a process that died: take it over.
      removeStaleLock(dataDir, draft);
    }
  } finally {
    rmSync(draft, { force: true });
  }
  throw new Error(`could not lock ${dataDir}: the lock file keeps reappearing`);
}
