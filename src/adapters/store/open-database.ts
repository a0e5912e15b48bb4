/**
 * Opens the configured database: PostgreSQL for `DATABASE_URL` (one connection made at
 * once, so that an unreachable server stops the start naming its address), else the
 * embedded one (PGlite) after taking its data directory (see `data-dir-lock.ts`).
 */
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config/config.js';
import { acquireDataDirLock, DataDirBusy, type DataDirLock, type LockHolder } from './data-dir-lock.js';
import type { Database } from './database.js';
import { requireOwner } from './owned-path.js';
import { PostgresDatabase } from './postgres-database.js';

export interface OpenedDatabase {
  readonly database: Database;
  /** Releases what opening took (the data-dir lock); call after `database.close()`. */
  readonly release: () => void;
  /** Entries of the embedded data dir whose modes were closed to other users at this opening. */
  readonly tightened?: number;
}

/** How long a starting server waits for a CLI command that holds the data directory. */
const COMMAND_HOLD_WAIT_MS = 15_000;

/**
 * Takes the data directory. A CLI command holds it only for seconds, so a server
 * waits for it instead of failing; another server holding it is an error at once.
 */
async function acquireWaitingForCommands(dataDir: string, holder: Omit<LockHolder, 'pid'>): Promise<DataDirLock> {
  const deadline = Date.now() + COMMAND_HOLD_WAIT_MS;
  for (;;) {
    try {
      return acquireDataDirLock(dataDir, holder);
    } catch (error) {
      const waitable = error instanceof DataDirBusy && error.holder.role === 'command' && holder.role === 'server';
      if (!waitable || Date.now() >= deadline) throw error;
    }
    await sleep(100);
  }
}

/** Modes of an embedded data dir, like PostgreSQL's: its owner's alone. */
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;
/** What the process creates from now on is its owner's alone (files 0600, directories 0700). */
const OWNER_ONLY_UMASK = 0o077;

/**
 * Closes `dir` and everything in it to other users (directories 0700, files 0600):
 * a data dir made by an older version, restored from a backup or copied by hand
 * keeps the modes it came with. Symbolic links are left alone; an entry of another
 * user is refused. Returns how many entries were changed.
 */
function closeToOthers(dir: string): number {
  let changed = 0;
  const tighten = (path: string, mode: number) => {
    const stats = lstatSync(path);
    // Something another user put in the data dir before it was closed is not used.
    requireOwner(path, stats);
    if ((stats.mode & 0o777) === mode) return;
    chmodSync(path, mode);
    changed += 1;
  };
  const walk = (path: string) => {
    tighten(path, PRIVATE_DIR_MODE);
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const inner = join(path, entry.name);
      if (entry.isDirectory()) walk(inner);
      else if (!entry.isSymbolicLink()) tighten(inner, PRIVATE_FILE_MODE);
    }
  };
  walk(dir);
  return changed;
}

/** Opens PostgreSQL, or the embedded database after taking its data directory. */
export async function openDatabase(config: Config, holder: Omit<LockHolder, 'pid'>): Promise<OpenedDatabase> {
  if (config.databaseUrl !== undefined) {
    const database = new PostgresDatabase({
      connectionString: config.databaseUrl,
      poolMax: config.databasePoolMax,
      timeoutMs: config.database.timeoutMs,
      idleInTransactionTimeoutMs: config.database.idleInTransactionTimeoutMs,
      keepAliveSeconds: config.database.keepAliveSeconds,
    });
    try {
      await database.connect();
    } catch (error) {
      await database.close().catch(() => {});
      throw error;
    }
    return { database, release: () => {} };
  }
  const lock = await acquireWaitingForCommands(config.dataDir, holder);
  try {
    // What PGlite creates from here on (WAL segments, relation files) is 0600, and what
    // an older start left more open is closed now: see docs/operations.md, "Data dir".
    process.umask(OWNER_ONLY_UMASK);
    const tightened = closeToOthers(config.dataDir);
    // Loaded only for the embedded database: a PostgreSQL deployment never holds PGlite's code.
    const { PgliteDatabase } = await import('./pglite-database.js');
    const database = await PgliteDatabase.open(join(config.dataDir, 'pg'), { timeoutMs: config.database.timeoutMs });
    // PGlite rewrites its relation-cache files (`pg_internal.init`) on opening with modes of its own.
    closeToOthers(config.dataDir);
    return { database, release: () => lock.release(), tightened };
  } catch (error) {
    lock.release();
    throw error;
  }
}
