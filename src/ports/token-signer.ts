import type { DatabaseDeadline } from './database-deadline.js';

/**
 * What binds a token to its holder (RFC 7800 `cnf`): the thumbprint of a DPoP key
 * (RFC 9449 §6.1) or of a client certificate (RFC 8705 §3.1).
 */
export interface Confirmation {
  readonly jkt?: string;
  readonly 'x5t#S256'?: string;
}

/** Claims of a coregate access token (a signed JWT, RFC 9068). */
export interface AccessTokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly client_id: string;
  /** The gateway the token is for (RFC 9068 §2.2); tokens issued before it existed lack it (see the keyring's verification). */
  readonly aud?: string;
  readonly scope: string;
  /** The client's institution when the token was issued (docs/behaviour.md#institution-isolation); tokens from before institutions lack it: `default`. */
  readonly institution?: string;
  readonly token_use: 'access';
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
  /** Present on sender-constrained tokens only. */
  readonly cnf?: Confirmation;
}

export interface PublicJwks {
  readonly keys: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

/** Signs access tokens with the active key and publishes the public keys. */
export interface TokenSigner {
  /** `deadline`: the issuing request's time for the database, should the keys have to be read again (`database-deadline.ts`). */
  sign(claims: AccessTokenClaims, deadline?: DatabaseDeadline): Promise<string>;
  /** Public keys a verifier needs: the active key and retired keys whose tokens may still be alive. */
  jwks(): Promise<PublicJwks>;
}

/** Why a presented access token was refused. */
export class InvalidAccessToken extends Error {
  constructor(readonly reason: string) {
    super(`invalid access token: ${reason}`);
  }
}

/**
 * A token whose `aud` does not name this gateway (RFC 9068 §4): refused like any invalid
 * token, but its holder is told which audience the gateway takes (`expectedAudience`).
 */
export class AccessTokenForAnotherAudience extends InvalidAccessToken {
  constructor(readonly expectedAudience: string) {
    super('aud is not this gateway');
  }
}

export interface TokenVerifier {
  /**
   * Verifies signature, issuer, type and lifetime at `now`; throws {@link InvalidAccessToken}.
   * `deadline`: the request's time for the database, should the keys have to be read again.
   */
  verify(token: string, now: Date, deadline?: DatabaseDeadline): Promise<AccessTokenClaims>;
}
