/**
 * PostgreSQL for the benchmarks: one fresh database per use, dropped at the end
 * of the run. The server is `COREGATE_BENCH_PG_URL` (default the local one the
 * tests use); without it, PostgreSQL scenarios are skipped with the reason.
 */
import pg from 'pg';

export const ADMIN_URL =
  process.env.COREGATE_BENCH_PG_URL ??
  process.env.COREGATE_TEST_PG_URL ??
  'postgres://postgres@127.0.0.1:5432/postgres';

function databaseUrl(name) {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withClient(url, run) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export function postgresHelper(runId) {
  const created = new Set();
  return {
    adminUrl: ADMIN_URL,
    /** `undefined` when reachable, else why not. */
    async unavailable() {
      try {
        await withClient(ADMIN_URL, (client) => client.query('select 1'));
        return undefined;
      } catch (error) {
        return `PostgreSQL at ${ADMIN_URL.replace(/\/\/[^@]*@/, '//')} is unreachable: ${error.message}`;
      }
    },
    /** Creates an empty database; returns its URL. */
    async create(purpose) {
      const name = `coregate_bench_${runId}_${purpose}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
      await withClient(ADMIN_URL, (client) => client.query(`create database "${name}"`));
      created.add(name);
      return databaseUrl(name);
    },
    /** Runs `run(client)` connected to the database at `url`. */
    with: (url, run) => withClient(url, run),
    async dropAll() {
      for (const name of created) {
        await withClient(ADMIN_URL, (client) => client.query(`drop database if exists "${name}" with (force)`)).catch(
          (error) => {
            process.stderr.write(`bench: could not drop database ${name}: ${error.message}\n`);
          },
        );
        created.delete(name);
      }
    },
  };
}
