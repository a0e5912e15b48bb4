/** Verification of what a client signs to prove itself: client assertions (RFC 7523) and DPoP proofs (RFC 9449). */
import type { ClientJwks } from '../domain/client.js';

/** A proof refused; `reason` is for the log only. */
export class InvalidProof extends Error {
  constructor(readonly reason: string) {
    super(`invalid proof: ${reason}`);
  }
}

export interface VerifiedAssertion {
  readonly jti: string;
  /** Seconds since the epoch. */
  readonly exp: number;
}

export interface ClientAssertionVerifier {
  /** The client id an assertion claims (`iss`, equal to `sub`), before any check: which keys to verify it with. */
  claimedClient(assertion: string): string | undefined;
  /**
   * Checks signature (with a key of `jwks`), `iss` = `sub` = `clientId`, `aud` one of
   * `audiences`, `exp` in the future and at most five minutes ahead, `jti` present.
   * Throws {@link InvalidProof}.
   */
  verify(
    assertion: string,
    jwks: ClientJwks,
    expected: { readonly clientId: string; readonly audiences: readonly string[]; readonly now: Date },
  ): Promise<VerifiedAssertion>;
  /**
   * Costs what {@link verify} costs — a signature check, against a fixed key of the
   * assertion's algorithm — and proves nothing: for an assertion naming no such client, so
   * that the answer takes as long as for a client that exists.
   */
  verifyAgainstDecoy(assertion: string): Promise<void>;
}

export interface VerifiedDpopProof {
  /** The JWK thumbprint (RFC 7638, SHA-256) of the proof's key: the token's `cnf.jkt`. */
  readonly jkt: string;
  readonly jti: string;
  /** Seconds since the epoch. */
  readonly iat: number;
}

export interface DpopProofExpectation {
  readonly method: string;
  /** The request's URL as the issuer names it (scheme, host and path; no query or fragment). */
  readonly url: string;
  readonly now: Date;
  /** At the gateway: the access token the proof must be bound to (`ath`, RFC 9449 §4.3). */
  readonly accessToken?: string;
  /** When the server demands nonces: the nonces it accepts now. */
  readonly nonces?: readonly string[];
}

export interface DpopProofVerifier {
  /** Checks a DPoP proof JWT (RFC 9449 §4.3) but not its `jti`'s single use. Throws {@link InvalidProof}. */
  verify(proof: string, expected: DpopProofExpectation): Promise<VerifiedDpopProof>;
  /** The signing algorithms it accepts, for the metadata. */
  readonly algorithms: readonly string[];
}
