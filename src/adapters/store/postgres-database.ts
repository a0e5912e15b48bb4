import pg from 'pg';
import { Unavailable } from '../../domain/errors.js';
import { isConnectionFailure, type Database, type PoolStats, type Queryable } from './database.js';

/** How long callers are asked to wait when the database is unreachable. */
const RETRY_AFTER_SECONDS = '5';

/** An unreachable database is a 503 with Retry-After (CONTRACT §3), not a 500. */
function unavailable(error: unknown): unknown {
  if (!isConnectionFailure(error)) return error;
  return new Unavailable('the service is temporarily unavailable', {}, {
    detail: `database unreachable: ${(error as Error).message}`,
    headers: { 'retry-after': RETRY_AFTER_SECONDS },
  });
}

export interface PostgresOptions {
  readonly connectionString: string;
  readonly poolMax: number;
  readonly applicationName?: string;
}

/** PostgreSQL through a `pg` connection pool. */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly maxConnections: number;

  constructor(options: PostgresOptions) {
    this.maxConnections = options.poolMax;
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
    try {
      const result = await this.pool.query(text, params as unknown[]);
      return result.rows as Row[];
    } catch (error) {
      throw unavailable(error);
    }
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw unavailable(error);
    });
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
      throw unavailable(error);
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('select 1');
  }

  poolStats(): PoolStats {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount, max: this.maxConnections };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
