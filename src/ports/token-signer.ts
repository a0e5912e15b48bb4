/** Claims of a coregate access token (a signed JWT). */
export interface AccessTokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly client_id: string;
  readonly scope: string;
  /** The client's institution when the token was issued (docs/behaviour.md#institution-isolation); tokens from before institutions lack it: `default`. */
  readonly institution?: string;
  readonly token_use: 'access';
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
}

export interface PublicJwks {
  readonly keys: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

/** Signs access tokens with the active key and publishes the public keys. */
export interface TokenSigner {
  sign(claims: AccessTokenClaims): Promise<string>;
  /** Public keys a verifier needs: the active key and retired keys whose tokens may still be alive. */
  jwks(): Promise<PublicJwks>;
}

/** Why a presented access token was refused. */
export class InvalidAccessToken extends Error {
  constructor(readonly reason: string) {
    super(`invalid access token: ${reason}`);
  }
}

export interface TokenVerifier {
  /** Verifies signature, issuer, type and lifetime at `now`; throws {@link InvalidAccessToken}. */
  verify(token: string, now: Date): Promise<AccessTokenClaims>;
}
