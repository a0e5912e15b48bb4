/** Persistence of the JWT signing keys; private parts arrive here already sealed. */
import type { DatabaseDeadline } from './database-deadline.js';

export interface StoredSigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly publicJwk: Readonly<Record<string, unknown>>;
  /**
   * The private part: the private JWK sealed with the encryption key (see `SecretSealer`),
   * or, for a key kept on an HSM, the reference its custody gave (`signing-key-custody.ts`).
   */
  readonly privateSealed: string;
  readonly createdAt: Date;
  /** When the key stopped signing; `null` for the active key. */
  readonly retiredAt: Date | null;
  /** Until when a retired key stays in the JWKS (tokens it signed may still be alive). */
  readonly publishUntil: Date | null;
}

export class ActiveKeyConflict extends Error {
  constructor() {
    super('another process activated a signing key at the same time');
  }
}

export interface SigningKeyStore {
  /** The active key and the retired keys still to be published at `now`, newest first; `deadline`: the reading request's (`database-deadline.ts`). */
  listPublished(now: Date, deadline?: DatabaseDeadline): Promise<StoredSigningKey[]>;
  /**
   * Makes `key` the active key. With `retireActive` the current active key is retired
   * (published until `publishUntil`); without it, the insert fails with
   * {@link ActiveKeyConflict} if an active key exists. Atomic across processes.
   */
  activate(key: StoredSigningKey, options: { retireActive: boolean; publishUntil: Date }): Promise<void>;
  /** Of `kids`, those retired and out of the JWKS at `now`: their private parts can be destroyed. */
  expiredAmong(kids: readonly string[], now: Date): Promise<string[]>;
  /** Takes a retired key out of the JWKS at `now` (an emergency revocation); `false` if no such retired key. */
  unpublish(kid: string, now: Date): Promise<boolean>;
}
