/**
 * Authenticated encryption of secrets at rest (signing keys, delegate reference IDs).
 * The sealed text names the key that sealed it so encryption keys can rotate.
 */
export interface SecretSealer {
  /** `context` is bound into the ciphertext (AAD): a value sealed for one row cannot be moved to another. */
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}
