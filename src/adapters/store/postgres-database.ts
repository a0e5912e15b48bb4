import { createHash } from 'node:crypto';
import pg from 'pg';
import { DatabaseUnavailable } from '../../ports/database-unavailable.js';
import type { ChangeFeed } from '../../ports/change-feed.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import { PostgresChangeFeed } from './postgres-change-feed.js';
import {
  databaseUnavailable,
  inDatabaseSpan,
  isConnectionFailure,
  waitWithin,
  withDeadline,
  type Database,
  type PoolStats,
  type Queryable,
} from './database.js';

/** An unreachable database is unavailable (503 with Retry-After, docs/behaviour.md#upstream-failures), not a 500. */
function unavailableIfUnreachable(error: unknown): unknown {
  if (error instanceof DatabaseUnavailable || !isConnectionFailure(error)) return error;
  return databaseUnavailable(`database unreachable: ${(error as Error).message}`);
}

/** pg reports a broken connection on the client too, and a checked-out client has no other listener. */
function ignore(): void {}

/**
 * PostgreSQL could not be reached when coregate opened it: the message names the address
 * tried and the cause, for the operator reading the one line `coregate` prints (never the
 * password of `DATABASE_URL`).
 */
export class DatabaseUnreachable extends Error {
  override readonly name = 'DatabaseUnreachable';
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`could not connect to PostgreSQL at ${address}: ${reason}`);
  }
}

/** `host:port` of a connection string (the socket directory for `?host=/path`), without credentials. */
export function databaseAddress(connectionString: string): string {
  const url = new URL(connectionString);
  const host = url.searchParams.get('host') ?? (decodeURIComponent(url.hostname) || 'localhost');
  return `${host}:${url.port || '5432'}`;
}

const CONNECT_FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (DNS lookup failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'the connection was reset',
};

/** Why a first connection failed, in words; the password is blanked should a message carry it. */
export function connectFailureReason(error: unknown, connectionString: string, timeoutMs: number): string {
  const failure = error as { code?: string; message?: string; errors?: Array<{ code?: string }> };
  // Node reports a host with several addresses (localhost: ::1 and 127.0.0.1) as an AggregateError.
  const code = failure.code ?? failure.errors?.[0]?.code;
  const known = code === undefined ? undefined : CONNECT_FAILURES[code];
  if (known !== undefined) return known;
  const message = String(failure.message ?? error);
  if (code === 'ETIMEDOUT' || /timeout/i.test(message))
    return `no answer within ${timeoutMs} ms (COREGATE_DB_TIMEOUT_MS)`;
  const password = decodeURIComponent(new URL(connectionString).password);
  return password === '' ? message : message.split(password).join('***');
}

export interface PostgresOptions {
  readonly connectionString: string;
  readonly poolMax: number;
  readonly applicationName?: string;
  /**
   * The longest a caller waits (COREGATE_DB_TIMEOUT_MS): to connect, for a pooled
   * connection, for one statement (server-side `statement_timeout` and client-side
   * `query_timeout`), and for a whole `query()` — past it the caller gets a 503.
   * 3000 unless set.
   */
  readonly timeoutMs?: number;
  /** `idle_in_transaction_session_timeout` in ms (0 = off); 10000 unless set. */
  readonly idleInTransactionTimeoutMs?: number;
  /** TCP keep-alive initial delay in seconds (0 = off); 10 unless set. */
  readonly keepAliveSeconds?: number;
}

/** How a deadline passed waiting for PostgreSQL reads in the log (the client sees a plain 503). */
function timedOut(ms: number): Error {
  return Object.assign(new Error(`no answer from the database within ${ms} ms`), { code: 'ETIMEDOUT' });
}

/** Distinct statement texts prepared by name; texts past this many are sent unnamed (see {@link StatementNames}). */
const MAX_PREPARED_TEXTS = 256;
/** Statements run again and again; schema changes (migrations) run once and stay unnamed. */
const DML = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Names for coregate's statements, so that each pooled connection parses and plans a
 * statement once and then only binds and executes it: an unnamed statement is parsed,
 * analysed and planned by PostgreSQL on every execution (for the registration statement,
 * more of its CPU than executing it). The name is a digest of the text, so
 * one text has one name on every connection and a changed text (a new release) a new one.
 * Statement texts are fixed in the code, but a few are built per call (filters of
 * `audit list`): only the first {@link MAX_PREPARED_TEXTS} distinct texts are named, which
 * bounds what each connection keeps prepared on the server.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly max = MAX_PREPARED_TEXTS) {}

  /** The name to prepare `text` under, or undefined to send it unnamed. */
  of(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.max || !DML.test(text)) return known;
    const name = `cg_${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
    this.names.set(text, name);
    return name;
  }
}

/** PostgreSQL through a `pg` connection pool. */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly maxConnections: number;
  private readonly timeoutMs: number;
  private readonly statementNames = new StatementNames();

  constructor(private readonly options: PostgresOptions) {
    this.maxConnections = options.poolMax;
    this.timeoutMs = options.timeoutMs ?? 3000;
    const keepAliveSeconds = options.keepAliveSeconds ?? 10;
    // A partition leaves sockets open with nobody answering: every wait is bounded
    // (connect, pool queue, each statement on both sides of the wire) and TCP
    // keep-alive finds dead connections that sit idle in the pool.
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolMax,
      application_name: options.applicationName ?? 'coregate',
      connectionTimeoutMillis: this.timeoutMs,
      query_timeout: this.timeoutMs,
      statement_timeout: this.timeoutMs,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 10_000,
      keepAlive: keepAliveSeconds > 0,
      keepAliveInitialDelayMillis: keepAliveSeconds * 1000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its connection must not crash the process; the next
    // query gets a fresh connection.
    this.pool.on('error', () => {});
  }

  query<Row>(text: string, params: readonly unknown[] = [], deadline?: DatabaseDeadline): Promise<Row[]> {
    return inDatabaseSpan(text, () => this.runQuery<Row>(text, params, deadline));
  }

  private async runQuery<Row>(text: string, params: readonly unknown[], deadline?: DatabaseDeadline): Promise<Row[]> {
    const name = this.statementNames.of(text);
    const config: pg.QueryConfig =
      name === undefined ? { text, values: params as unknown[] } : { name, text, values: params as unknown[] };
    try {
      // One bound over waiting for a connection and running the statement.
      const result = await waitWithin(deadline, this.timeoutMs, (ms) =>
        this.withConnection(ms, async (client) => {
          client.on('error', ignore);
          try {
            const answer = await client.query(config);
            client.release();
            return answer;
          } catch (error) {
            // As pg's own pool.query: a connection that failed a statement is not reused.
            client.release(error as Error);
            throw error;
          } finally {
            client.off('error', ignore);
          }
        }),
      );
      return result.rows as Row[];
    } catch (error) {
      throw unavailableIfUnreachable(error);
    }
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>, deadline?: DatabaseDeadline): Promise<T> {
    return inDatabaseSpan('transaction', () => this.runTransaction(work, deadline));
  }

  private async runTransaction<T>(work: (tx: Queryable) => Promise<T>, deadline?: DatabaseDeadline): Promise<T> {
    const within = <R>(wait: (ms: number) => Promise<R>): Promise<R> => waitWithin(deadline, this.timeoutMs, wait);
    let client: pg.PoolClient;
    try {
      client = await within((ms) => this.withConnection(ms, (checkedOut) => checkedOut));
    } catch (error) {
      throw unavailableIfUnreachable(error);
    }
    client.on('error', ignore);
    // pg's read timeout and the server's statement_timeout are the pool's (COREGATE_DB_TIMEOUT_MS);
    // a longer deadline (the migrations') lifts both for this transaction alone.
    const longer = deadline !== undefined && deadline.budgetMs > this.timeoutMs;
    const statement = <Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> =>
      within(async (ms) => {
        const query = client.query({ text, values: params as unknown[], ...(longer ? { query_timeout: ms } : {}) });
        return (await withDeadline(query, ms, () => timedOut(ms))).rows as Row[];
      });
    try {
      await statement('BEGIN');
      if (longer) await statement(`set local statement_timeout = ${Math.ceil(deadline.budgetMs)}`);
      const result = await work({ query: statement });
      await statement('COMMIT');
      client.off('error', ignore);
      client.release();
      return result;
    } catch (error) {
      // Not waited for: the connection is discarded rather than returned to the pool (its state
      // is unknown), and that ends its transaction on the server whether or not ROLLBACK arrives.
      // A hung connection would otherwise hold the caller a whole timeout more.
      void client.query('ROLLBACK').catch(() => {});
      client.release(true);
      throw unavailableIfUnreachable(error);
    }
  }

  /**
   * `use` on a pooled connection, its caller waiting at most `ms` for both. A connection that
   * comes after the caller gave up goes back to the pool unused: nothing is sent for a request
   * that has had its answer (a write must not land after the 503 that said it failed).
   */
  private withConnection<R>(ms: number, use: (client: pg.PoolClient) => R | Promise<R>): Promise<R> {
    let gaveUp = false;
    const work = this.pool.connect().then((client) => {
      if (!gaveUp) return use(client);
      client.release();
      throw timedOut(ms);
    });
    return withDeadline(work, ms, () => {
      gaveUp = true;
      return timedOut(ms);
    });
  }

  /**
   * Opens one connection (then pools it): a database that cannot be reached at start is
   * a {@link DatabaseUnreachable} naming the address and the cause, not a request's 503.
   */
  async connect(): Promise<void> {
    try {
      (await this.pool.connect()).release();
    } catch (error) {
      throw new DatabaseUnreachable(
        databaseAddress(this.options.connectionString),
        connectFailureReason(error, this.options.connectionString, this.timeoutMs),
      );
    }
  }

  async ping(): Promise<void> {
    await this.query('select 1');
  }

  poolStats(): PoolStats {
    return {
      total: this.pool.totalCount,
      idle: this.pool.idleCount,
      waiting: this.pool.waitingCount,
      max: this.maxConnections,
    };
  }

  /** LISTEN on a connection of its own, outside the pool. */
  changeFeed(): ChangeFeed {
    return new PostgresChangeFeed({
      connectionString: this.options.connectionString,
      timeoutMs: this.timeoutMs,
      ...(this.options.keepAliveSeconds === undefined ? {} : { keepAliveSeconds: this.options.keepAliveSeconds }),
    });
  }

  /** Ends the pool; a second call does nothing (the services and their opener may both close it). */
  async close(): Promise<void> {
    if (!this.pool.ending) await this.pool.end();
  }
}
