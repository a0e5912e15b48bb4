/**
 * The one seam between the stores and the two PostgreSQL engines (a server
 * through `pg`, or embedded PGlite). Stores write plain PostgreSQL with `$n`
 * parameters and run unchanged on both.
 */
export interface Queryable {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

export type DatabaseKind = 'postgres' | 'embedded';

export interface Database extends Queryable {
  readonly kind: DatabaseKind;
  /** Runs `work` in one transaction; rolls back if it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** A cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** SQLSTATE 23505: a unique constraint refused the write. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
