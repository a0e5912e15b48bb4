/**
 * The one seam between the stores and the two PostgreSQL engines (a server
 * through `pg`, or embedded PGlite). Stores write plain PostgreSQL with `$n`
 * parameters and run unchanged on both.
 */
import { DatabaseUnavailable } from '../../ports/database-unavailable.js';
import type { ChangeFeed } from '../../ports/change-feed.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import { inSpan, SpanKind } from '../../ports/tracing.js';

export interface Queryable {
  /**
   * `deadline`: the request's time for the database (`ports/database-deadline.ts`); without
   * one the statement may take `COREGATE_DB_TIMEOUT_MS`. Inside a transaction the
   * transaction's deadline applies.
   */
  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
    deadline?: DatabaseDeadline,
  ): Promise<Row[]>;
}

type DatabaseKind = 'postgres' | 'embedded';

/** A connection pool's occupancy, as `pg.Pool` reports it. */
export interface PoolStats {
  /** Connections open, busy or idle. */
  readonly total: number;
  readonly idle: number;
  /** Queries queued for a free connection. */
  readonly waiting: number;
  readonly max: number;
}

export interface Database extends Queryable {
  readonly kind: DatabaseKind;
  /** Runs `work` in one transaction; rolls back if it throws. Every wait of it counts against `deadline`. */
  transaction<T>(work: (tx: Queryable) => Promise<T>, deadline?: DatabaseDeadline): Promise<T>;
  /** A cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  /** The connection pool's occupancy, for metrics; absent when there is no pool (PGlite). */
  poolStats?(): PoolStats;
  /**
   * A new feed of the changes committed to this database by any process (see
   * `change-notifications.ts`), not started; absent where nothing can listen.
   */
  changeFeed?(): ChangeFeed;
  close(): Promise<void>;
}

/** SQLSTATE 23505: a unique constraint refused the write. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

// 57014: statement_timeout cancelled a statement — the database is too slow to answer in time.
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '57014',
  '53300',
]);
const CONNECTION_ERROR_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|connection error|Cannot use a pool after calling end|Query read timeout/i;

/** True when the database could not be reached (as opposed to refusing a statement). */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code: rawCode, message } = error as { code?: unknown; message?: unknown };
  const code = typeof rawCode === 'string' || typeof rawCode === 'number' ? String(rawCode) : '';
  if (CONNECTION_ERROR_CODES.has(code) || code.startsWith('08')) return true;
  return typeof message === 'string' && CONNECTION_ERROR_MESSAGES.test(message);
}

/** How long callers are asked to wait when the database cannot serve them. */
const RETRY_AFTER_SECONDS = 5;

let refusals = 0;

/** Database waits refused so far in this process (each a 503), for the metrics. */
export function databaseRefusals(): number {
  return refusals;
}

/** The database cannot serve this request (down, hung, busy); the HTTP layer answers 503 with Retry-After. */
export function databaseUnavailable(detail: string): DatabaseUnavailable {
  refusals += 1;
  return new DatabaseUnavailable(detail, RETRY_AFTER_SECONDS);
}

/** What a request that has used up its time for the database gets instead of another wait. */
function deadlineSpent(): DatabaseUnavailable {
  return databaseUnavailable('the request used up its time for the database (COREGATE_DB_TIMEOUT_MS)');
}

/**
 * `wait(ms)` with the time `deadline` leaves, counted against it; without a deadline, `fullMs`
 * (COREGATE_DB_TIMEOUT_MS), as for work that no request waits for. A request's deadline has
 * that same budget; a longer one (the migrations') lets each wait take what it leaves.
 */
export function waitWithin<T>(
  deadline: DatabaseDeadline | undefined,
  fullMs: number,
  wait: (ms: number) => Promise<T>,
): Promise<T> {
  return deadline === undefined ? wait(fullMs) : deadline.wait(wait, deadlineSpent);
}

/**
 * `work`, or `timeout()`'s error once `ms` have passed (the work goes on unobserved:
 * its own timeouts end it). A hung database answers its callers in bounded time.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, timeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeout()), ms);
  });
  work.catch(() => {});
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** `SELECT`, `INSERT`, …: the statement's first word, all a span says of it (no values, no table layout). */
function operationName(text: string): string {
  return /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
}

/**
 * `run` inside a client span of the request that waits on it (docs/operations.md#observability): one
 * span per statement outside a transaction (`db <OPERATION>`), one per transaction (`db transaction`,
 * the statement group a request waits on); `statement` is the SQL text, or `transaction`. Work no request waits for (background tasks) makes none.
 */
export function inDatabaseSpan<T>(statement: string, run: () => Promise<T>): Promise<T> {
  const operation = statement === 'transaction' ? 'transaction' : operationName(statement);
  return inSpan(
    `db ${operation}`,
    {
      kind: SpanKind.CLIENT,
      childOnly: true,
      attributes: { 'db.system.name': 'postgresql', 'db.operation.name': operation },
    },
    run,
  );
}
