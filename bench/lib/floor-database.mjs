/**
 * The database of a floor (`baselines/registration-floor.mjs`, `baselines/bare-proxy.mjs` with
 * an audit row): the least a server of the same storage can do, so every statement is a named
 * prepared statement, parsed and planned once, as coregate's own are.
 *
 * `DATABASE_URL` (PostgreSQL, a `pg` Pool of `POOL_SIZE` connections) or `DATA_DIR` (PGlite in
 * this process with the same named statements as coregate's embedded database, as coregate runs
 * it: the database's CPU is then counted in the floor's figures, as it is in coregate's).
 * PGlite's own node-postgres adapter was measured and not used: it runs the backend once per
 * protocol message, which costs more than the statement it saves.
 * `{kind, query(name, text, params) → rows, close()}`.
 */
export async function openFloorDatabase() {
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
    return {
      kind: 'postgres',
      query: async (name, text, values) => (await pool.query({ name, text, values })).rows,
      close: () => pool.end(),
    };
  }
  if (process.env.DATA_DIR) {
    const { PGlite } = await import('@electric-sql/pglite');
    const { PgliteStatements } = await import('../../dist/src/adapters/store/pglite-statements.js');
    const db = await PGlite.create({ dataDir: process.env.DATA_DIR });
    // The floor is this database's only user, so its statements need no turn-taking.
    const statements = new PgliteStatements(db);
    return {
      kind: 'pglite',
      query: (_name, text, values) => statements.run(text, values),
      close: () => db.close(),
    };
  }
  throw new Error('DATABASE_URL or DATA_DIR is required');
}
