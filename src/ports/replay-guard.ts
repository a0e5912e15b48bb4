import type { DatabaseDeadline } from './database-deadline.js';

/**
 * Single use of proof identifiers (the `jti` of client assertions and DPoP proofs) across
 * every process sharing the installation: never one process's memory alone.
 */
export interface ReplayGuard {
  /**
   * Records `key` as used until `until`. `true` the first time; `false` when it was
   * used before and has not expired since, in this process or any other. `deadline`: the
   * checking request's time for the database, where the database decides (`database-deadline.ts`).
   */
  firstUse(key: string, until: Date, now: Date, deadline?: DatabaseDeadline): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The single-use check cannot be made now (its store is failing): the proof is neither
 * accepted nor refused as a replay. Callers answer 503 with `Retry-After`.
 */
export class ReplayCheckUnavailable extends Error {
  constructor(
    readonly reason: string,
    /** When to try again. */
    readonly retryAfterSeconds: number,
  ) {
    super(`the single-use check of proofs cannot be made: ${reason}`);
  }
}
