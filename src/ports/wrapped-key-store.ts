/**
 * The encryption key as an HSM wrapped it (envelope encryption): stored in the database,
 * opened only by the token's wrapping key, named by that key's label.
 */
export interface WrappedKeyStore {
  /** The wrapped key stored for the wrapping key `label`, if any. */
  read(label: string): Promise<string | undefined>;
  /** Stores `wrapped` unless a key is stored for `label` already (another process was first); returns the one stored. */
  storeFirst(label: string, wrapped: string, now: Date): Promise<string>;
}
