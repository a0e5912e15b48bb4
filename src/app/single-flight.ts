/**
 * Concurrent callers asking for the same key share one pending promise (the
 * pattern of jose's `jwks/remote.ts`): a renewal storm starts one core session.
 */
export class SingleFlight<T> {
  private readonly pending = new Map<string, Promise<T>>();

  /** `onJoin` is told of every caller that shares a pending promise (for metrics). */
  constructor(private readonly onJoin?: () => void) {}

  run(key: string, work: () => Promise<T>): Promise<T> {
    const existing = this.pending.get(key);
    if (existing) {
      this.onJoin?.();
      return existing;
    }
    const promise = work().finally(() => this.pending.delete(key));
    this.pending.set(key, promise);
    return promise;
  }

  /** How many keys are in flight (for metrics and tests). */
  get size(): number {
    return this.pending.size;
  }
}
