/**
 * Random credentials (client secrets, refresh tokens) and their digests. The
 * credentials carry ≥ 256 random bits, so a keyed fast hash is the right digest:
 * a slow password KDF would add nothing but latency on every token request.
 */
export interface CredentialHasher {
  /** A new random credential with the given readable prefix (`cgs_`, `cgr_`). */
  generate(prefix: string): string;
  digest(credential: string): string;
  /** Constant-time comparison of a presented credential with a stored digest. */
  matches(credential: string, digest: string): boolean;
}
