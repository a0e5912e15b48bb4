/**
 * The database cannot serve this call: unreachable, not answering in time, busy, or the
 * request has used up its time for the database. A store adapter throws it; the HTTP layer
 * answers it 503 with Retry-After (docs/behaviour.md#upstream-failures), the CLI says so.
 */
export class DatabaseUnavailable extends Error {
  override readonly name = 'DatabaseUnavailable';

  constructor(
    /** What happened, for the log: never sent to a caller. */
    readonly detail: string,
    /** How long callers are asked to wait. */
    readonly retryAfterSeconds: number,
  ) {
    super(detail);
  }
}
