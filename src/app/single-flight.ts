/**
 * Concurrent callers asking for the same key share one pending promise (the
 * pattern of jose's `jwks/remote.ts`): a renewal storm starts one core session.
 *
 * Kept by hand rather than lru-cache's `fetchMethod`: a renewal is a *write* whose
 * result must not be cached — the next caller after it settles must see the stored
 * association (renewed here or by another process), not a remembered promise —
 * and the `onJoin` count feeds the single-flight metric, which lru-cache cannot tell.
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
}
