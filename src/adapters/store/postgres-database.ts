import pg from 'pg';
import type { Database, Queryable } from './database.js';

export interface PostgresOptions {
  readonly connectionString: string;
  readonly poolMax: number;
  readonly applicationName?: string;
}

/** PostgreSQL through a `pg` connection pool. */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(options: PostgresOptions) {
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolMax,
      application_name: options.applicationName ?? 'coregate',
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its connection must not crash the process; the next
    // query gets a fresh connection.
    this.pool.on('error', () => {});
  }

  async query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
    const result = await this.pool.query(text, params as unknown[]);
    return result.rows as Row[];
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx: Queryable = {
      query: async <Row>(text: string, params: readonly unknown[] = []) =>
        (await client.query(text, params as unknown[])).rows as Row[],
    };
    try {
      await client.query('BEGIN');
      const result = await work(tx);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      // A connection in an unknown state is discarded rather than returned to the pool.
      client.release(true);
      throw error;
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('select 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
