import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.js';

/**
 * Embedded PostgreSQL (PGlite, WebAssembly) in a data directory, or in memory
 * when `dataDir` is undefined. PGlite is a single connection: the caller must
 * make sure only one process opens a data directory (see `data-dir-lock.ts`).
 */
export class PgliteDatabase implements Database {
  readonly kind = 'embedded' as const;

  private constructor(private readonly db: PGlite) {}

  /**
   * Opens `dataDir` (in memory when undefined). `loadDataDir` starts it from a dump
   * (`dumpDataDir`) instead of an empty cluster: making a cluster costs seconds,
   * loading a dump a fraction of that, which is what the tests' template uses.
   */
  static async open(dataDir: string | undefined, options: { loadDataDir?: Blob } = {}): Promise<PgliteDatabase> {
    const db = await PGlite.create({
      ...(dataDir === undefined ? {} : { dataDir }),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    });
    return new PgliteDatabase(db);
  }

  /** A dump of the whole cluster (uncompressed), for `open(…, { loadDataDir })`. */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
    const result = await this.db.query<Row>(text, params as unknown[]);
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

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
