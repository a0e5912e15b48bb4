/**
 * One request's time for the database (docs/operations.md#one-database-deadline-per-request):
 * all of its waits for the database together last at most `COREGATE_DB_TIMEOUT_MS`, not that
 * long each. A wait gets what the earlier ones left and uses it up as it goes, so a database
 * that stops answering costs a request one timeout, however many steps it has left (the client
 * record, the institutions, the association, the audit row). Time spent elsewhere — at the
 * core, in the CPU — does not count: a slow core never costs a registration or a renewal the
 * database time it needs to store what the core answered.
 *
 * A number compared per wait, not an AbortSignal or a timer: a request that finds everything
 * in its caches pays for this object only (docs/benchmarks.md).
 */

const monotonicMs = (): number => performance.now();

export class DatabaseDeadline {
  private spentMs = 0;

  constructor(
    /** COREGATE_DB_TIMEOUT_MS. */
    readonly budgetMs: number,
    /** Milliseconds on a clock that never goes back; `performance.now` unless a test brings its own. */
    private readonly now: () => number = monotonicMs,
  ) {}

  /** How long the request may still wait for the database; 0 once its time is used up. */
  get remainingMs(): number {
    return Math.max(0, this.budgetMs - this.spentMs);
  }

  /**
   * `wait(ms)` with the time left (at most `capMs`), counting the time it took against the
   * request, success or failure. With no time left, `spent()` is thrown and `wait` never called:
   * nothing more is sent to a database that already failed this request.
   */
  async wait<T>(wait: (ms: number) => Promise<T>, spent: () => Error, capMs = Number.POSITIVE_INFINITY): Promise<T> {
    const ms = Math.min(this.remainingMs, capMs);
    if (ms <= 0) throw spent();
    const started = this.now();
    try {
      return await wait(ms);
    } finally {
      this.spentMs += this.now() - started;
    }
  }
}
