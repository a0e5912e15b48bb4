/**
 * Single use of proof identifiers (the `jti` of client assertions and DPoP proofs) across
 * every process sharing the installation: never one process's memory alone.
 */
export interface ReplayGuard {
  /**
   * Records `key` as used until `until`. `true` the first time; `false` when it was
   * used before and has not expired since, in this process or any other.
   */
  firstUse(key: string, until: Date, now: Date): Promise<boolean>;
  close(): Promise<void>;
}
