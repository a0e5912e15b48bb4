/**
 * Fresh PostgreSQL databases for tests, on the server the test runner checked
 * (`scripts/run-tests.mjs`). Under CI an unreachable server is a failure, never a skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const adminUrl = process.env['COREGATE_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const runId = process.env['COREGATE_TEST_RUN_ID'] ?? `adhoc${process.pid.toString(36)}`;

/**
 * The one engine every database suite runs on, when set: `pglite` in the fast tier
 * (`npm run test:fast`), chosen deliberately, so it holds under `CI=true` too.
 */
export const onlyEngine: 'pglite' | undefined = process.env['COREGATE_TEST_ENGINE'] === 'pglite' ? 'pglite' : undefined;

/** Why PostgreSQL tests are skipped here, or `false` when they run. */
export const postgresSkip: string | false = onlyEngine
  ? 'the fast tier runs on the embedded engine only (npm test runs PostgreSQL too)'
  : process.env['CI'] === 'true'
    ? false
    : (process.env['COREGATE_TEST_PG_SKIP'] ?? false);

export interface FreshDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

export async function createFreshDatabase(): Promise<FreshDatabase> {
  const name = `coregate_test_${runId}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
