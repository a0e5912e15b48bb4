/**
 * The two storage backends every store and HTTP suite runs against: embedded
 * PGlite (in memory) and a fresh database on the real PostgreSQL server.
 */
import { readFile } from 'node:fs/promises';
import type { Database } from '../../src/adapters/store/database.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { PgliteDatabase } from '../../src/adapters/store/pglite-database.js';
import { PostgresDatabase } from '../../src/adapters/store/postgres-database.js';
import { createFreshDatabase, onlyEngine, postgresSkip } from './postgres.js';

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
  /**
   * A fresh database. The embedded one comes already migrated (from a template)
   * unless `empty` asks for one with no schema at all, as migration tests need.
   */
  open(options?: { empty?: boolean }): Promise<OpenBackend>;
}

/**
 * A migrated, empty embedded cluster: each suite loads a copy of it (a fraction of a
 * second) instead of making a cluster (seconds). `scripts/run-tests.mjs` makes it once
 * per run for every test process (`COREGATE_TEST_PGLITE_TEMPLATE`, a dump file); a test
 * file run on its own makes it once per process.
 */
let template: Promise<Blob> | undefined;

function migratedTemplate(): Promise<Blob> {
  const file = process.env['COREGATE_TEST_PGLITE_TEMPLATE'];
  template ??= (async () => {
    if (file) return new Blob([await readFile(file)]);
    const database = await PgliteDatabase.open(undefined);
    try {
      await migrate(database);
      return await database.dump();
    } finally {
      await database.close();
    }
  })();
  return template;
}

export const pgliteBackend: Backend = {
  name: 'pglite',
  skip: false,
  async open(options = {}) {
    const database = options.empty
      ? await PgliteDatabase.open(undefined)
      : await PgliteDatabase.open(undefined, { loadDataDir: await migratedTemplate() });
    return { database, databaseUrl: undefined, close: () => database.close() };
  },
};

const postgresBackend: Backend = {
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

/** Both engines; in the fast tier (`COREGATE_TEST_ENGINE=pglite`) the embedded one only. */
export const BACKENDS: readonly Backend[] = onlyEngine ? [pgliteBackend] : [pgliteBackend, postgresBackend];

/**
 * One backend for suites that do not test the database: PostgreSQL (a fresh
 * database is quicker to make than an embedded one) unless its tests are skipped here.
 */
export const QUICKEST_BACKEND: Backend = postgresBackend.skip ? pgliteBackend : postgresBackend;
