import { DatabaseDeadline } from '../../ports/database-deadline.js';
import type { Database } from './database.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

/** Arbitrary constant naming coregate's migration lock among PostgreSQL advisory locks. */
const MIGRATION_LOCK_ID = 0x636f7265; // "core"

/**
 * How long the migrations may take, the wait for another process's migrations included
 * (docs/operations.md#installing-from-a-clone). Far above a request's COREGATE_DB_TIMEOUT_MS: an index
 * built on a large table, or a slow database at start, must not fail the start.
 */
const MIGRATION_TIMEOUT_MS = 10 * 60_000;

export interface MigrationReport {
  readonly applied: ReadonlyArray<{ version: number; name: string }>;
  readonly current: number;
}

/**
 * Applies pending migrations in one transaction under an advisory lock, so that
 * several processes starting at once apply each migration exactly once.
 */
export async function migrate(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
  timeoutMs = MIGRATION_TIMEOUT_MS,
): Promise<MigrationReport> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    await tx.query(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`);
    const rows = await tx.query<{ version: number }>('select version from schema_migrations');
    const done = new Set(rows.map((row) => Number(row.version)));
    const applied: { version: number; name: string }[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push({ version: migration.version, name: migration.name });
    }
    const current = Math.max(0, ...done, ...applied.map((m) => m.version));
    return { applied, current };
  }, new DatabaseDeadline(timeoutMs));
}
