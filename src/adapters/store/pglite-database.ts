import { PGlite } from '@electric-sql/pglite';
import type { ChangeFeed } from '../../ports/change-feed.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import { PgliteChangeFeed } from './pglite-change-feed.js';
import {
  databaseUnavailable,
  inDatabaseSpan,
  waitWithin,
  withDeadline,
  type Database,
  type Queryable,
} from './database.js';

/** A caller that waited its time for the single connection. */
function busy(ms: number): Error {
  return databaseUnavailable(`embedded database busy: no answer within ${ms} ms`);
}

export interface PgliteOptions {
  /**
   * The longest a statement waits for the single connection (behind a transaction
   * or a long statement) before its caller gets a 503 (COREGATE_DB_TIMEOUT_MS);
   * 3000 unless set. A statement already running in WebAssembly holds the thread
   * and cannot be cut: the deadline bounds the wait, not the work.
   */
  readonly timeoutMs?: number;
  /** A cluster dump (`dump()`) to start from instead of an empty cluster. */
  readonly loadDataDir?: Blob;
}

/**
 * Embedded PostgreSQL (PGlite, WebAssembly) in a data directory, or in memory
 * when `dataDir` is undefined. PGlite is a single connection: the caller must
 * make sure only one process opens a data directory (see `data-dir-lock.ts`).
 */
export class PgliteDatabase implements Database {
  readonly kind = 'embedded' as const;

  private constructor(
    private readonly db: PGlite,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Opens `dataDir` (in memory when undefined). `loadDataDir` starts it from a dump
   * (`dumpDataDir`) instead of an empty cluster: making a cluster costs seconds,
   * loading a dump a fraction of that, which is what the tests' template uses.
   */
  static async open(dataDir: string | undefined, options: PgliteOptions = {}): Promise<PgliteDatabase> {
    const db = await PGlite.create({
      ...(dataDir === undefined ? {} : { dataDir }),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    });
    return new PgliteDatabase(db, options.timeoutMs ?? 3000);
  }

  /** A dump of the whole cluster (uncompressed), for `open(…, { loadDataDir })`. */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  query<Row>(text: string, params: readonly unknown[] = [], deadline?: DatabaseDeadline): Promise<Row[]> {
    return inDatabaseSpan(text, () => this.runQuery<Row>(text, params, deadline));
  }

  private async runQuery<Row>(text: string, params: readonly unknown[], deadline?: DatabaseDeadline): Promise<Row[]> {
    const result = await waitWithin(deadline, this.timeoutMs, (ms) =>
      withDeadline(this.db.query<Row>(text, params as unknown[]), ms, () => busy(ms)),
    );
    return result.rows;
  }

  /**
   * The wait for the connection is bounded (another transaction may hold it); once the
   * transaction has begun it runs to its end, which WebAssembly would not let a timer cut anyway.
   * A transaction whose turn comes after its caller gave up rolls back without doing anything.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, deadline?: DatabaseDeadline): Promise<T> {
    return inDatabaseSpan('transaction', () => this.runTransaction(work, deadline));
  }

  private async runTransaction<T>(work: (tx: Queryable) => Promise<T>, deadline?: DatabaseDeadline): Promise<T> {
    let gaveUp = false;
    let begun!: () => void;
    const started = new Promise<void>((resolve) => (begun = resolve));
    const run = this.db.transaction(async (inner) => {
      if (gaveUp) throw new Error('transaction not run: its caller stopped waiting for it');
      begun();
      return work({
        query: async <Row>(text: string, params: readonly unknown[] = []) =>
          (await inner.query<Row>(text, params as unknown[])).rows,
      });
    });
    return waitWithin(deadline, this.timeoutMs, async (ms) => {
      await withDeadline(Promise.race([started, run]), ms, () => {
        gaveUp = true;
        return busy(ms);
      });
      return run;
    });
  }

  async ping(): Promise<void> {
    await this.db.query('select 1');
  }

  /** PGlite's own LISTEN: every writer is in this process. */
  changeFeed(): ChangeFeed {
    return new PgliteChangeFeed(this.db);
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
