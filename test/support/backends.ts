/**
 * The two storage backends every store and HTTP suite runs against: embedded
 * PGlite (in memory) and a fresh database on the real PostgreSQL server.
 */
import type { Database } from '../../src/adapters/store/database.js';
import { PgliteDatabase } from '../../src/adapters/store/pglite-database.js';
import { PostgresDatabase } from '../../src/adapters/store/postgres-database.js';
import { createFreshDatabase, postgresSkip } from './postgres.js';

export interface OpenBackend {
  readonly database: Database;
  /** Set for PostgreSQL: what `DATABASE_URL` would be. */
  readonly databaseUrl: string | undefined;
  close(): Promise<void>;
}

export interface Backend {
  readonly name: 'pglite' | 'postgres';
  /** A reason to skip, or false. */
  readonly skip: string | false;
  open(): Promise<OpenBackend>;
}

export const pgliteBackend: Backend = {
  name: 'pglite',
  skip: false,
  async open() {
    const database = await PgliteDatabase.open(undefined);
    return { database, databaseUrl: undefined, close: () => database.close() };
  },
};

export const postgresBackend: Backend = {
  name: 'postgres',
  skip: postgresSkip,
  async open() {
    const fresh = await createFreshDatabase();
    const database = new PostgresDatabase({ connectionString: fresh.url, poolMax: 10 });
    return {
      database,
      databaseUrl: fresh.url,
      async close() {
        await database.close();
        await fresh.drop();
      },
    };
  },
};

export const BACKENDS: readonly Backend[] = [pgliteBackend, postgresBackend];

/**
 * One backend for suites that do not test the database: PostgreSQL (a fresh
 * database is quicker to make than an embedded one) unless its tests are skipped here.
 */
export const QUICKEST_BACKEND: Backend = postgresBackend.skip ? pgliteBackend : postgresBackend;
