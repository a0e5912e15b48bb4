/**
 * Opens the configured database: PostgreSQL for `DATABASE_URL` (one connection made at
 * once, so that an unreachable server stops the start naming its address), else the
 * embedded one (PGlite) after taking its data directory (see `data-dir-lock.ts`).
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config/config.js';
import { acquireDataDirLock, DataDirBusy, type DataDirLock, type LockHolder } from './data-dir-lock.js';
import type { Database } from './database.js';
import { PostgresDatabase } from './postgres-database.js';

export interface OpenedDatabase {
  readonly database: Database;
  /** Releases what opening took (the data-dir lock); call after `database.close()`. */
  readonly release: () => void;
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
    // Loaded only for the embedded database: a PostgreSQL deployment never holds PGlite's code.
    const { PgliteDatabase } = await import('./pglite-database.js');
    return { database: await PgliteDatabase.open(join(config.dataDir, 'pg'), { timeoutMs: config.database.timeoutMs }), release: () => lock.release() };
  } catch (error) {
    lock.release();
    throw error;
  }
}
