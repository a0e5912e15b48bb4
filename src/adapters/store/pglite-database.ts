import { PGlite } from '@electric-sql/pglite';
import { unavailable } from '../../domain/errors.js';
import type { ChangeFeed } from '../../ports/change-feed.js';
import { PgliteChangeFeed } from './pglite-change-feed.js';
import { withDeadline, type Database, type Queryable } from './database.js';

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

  async query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
    const ms = this.timeoutMs;
    const result = await withDeadline(this.db.query<Row>(text, params as unknown[]), ms, () =>
      unavailable('the service is temporarily unavailable', `embedded database busy: no answer within ${ms} ms`, 5),
    );
    return result.rows;
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(async (inner) =>
      work({
        query: async <Row>(text: string, params: readonly unknown[] = []) =>
          (await inner.query<Row>(text, params as unknown[])).rows,
      }),
    );
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
