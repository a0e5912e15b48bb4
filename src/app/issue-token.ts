/**
 * The token endpoint's grants (docs/behaviour.md#grants-and-scopes): client_credentials and
 * refresh_token, one scope per token, refresh tokens rotated on every use.
 * Client authentication has already happened; checks run grant_type first, then
 * the other parameters.
 */
import { randomUUID } from 'node:crypto';
import { isKnownScope, type ClientRecord } from '../domain/client.js';
import { invalidGrant, invalidRequest, unauthorizedClient, unsupportedGrantType } from '../domain/errors.js';
import type { Clock } from '../ports/clock.js';
import type { CredentialHasher } from '../ports/credential-hasher.js';
import type { DatabaseDeadline } from '../ports/database-deadline.js';
import type { RefreshTokenStore } from '../ports/refresh-token-store.js';
import type { Confirmation, TokenSigner } from '../ports/token-signer.js';

const REFRESH_TOKEN_PREFIX = 'cgr_';

/** Form parameters of a token request; absent and empty are both `undefined` (RFC 6749 §3.1). */
export interface TokenRequest {
  readonly grant_type?: string | undefined;
  readonly scope?: string | undefined;
  readonly refresh_token?: string | undefined;
}

export interface TokenResponse {
  readonly access_token: string;
  /** `DPoP` for a token bound to a DPoP key (RFC 9449 §5); a certificate-bound token stays `Bearer` (RFC 8705 §3). */
  readonly token_type: 'Bearer' | 'DPoP';
  readonly expires_in: number;
  readonly scope: string;
  readonly refresh_token?: string;
}

export interface TokenIssuerOptions {
  readonly issuer: () => string;
  /** The gateway's URL, the tokens' `aud` (RFC 9068 §2.2). */
  readonly audience: () => string;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
}

export class TokenIssuer {
  constructor(
    private readonly refreshTokens: RefreshTokenStore,
    private readonly hasher: CredentialHasher,
    private readonly signer: TokenSigner,
    private readonly clock: Clock,
    private readonly options: TokenIssuerOptions,
  ) {}

  /**
   * `binding`: what the caller proved it holds (a DPoP key's thumbprint, a client certificate's):
   * the access token is bound to it (`cnf`). A client with `requireBoundTokens` gets no token without.
   * `deadline`: the request's time for the database (`ports/database-deadline.ts`).
   */
  async issue(
    client: ClientRecord,
    request: TokenRequest,
    binding?: Confirmation,
    deadline?: DatabaseDeadline,
  ): Promise<TokenResponse> {
    switch (request.grant_type) {
      case undefined:
        throw invalidRequest('grant_type is required');
      case 'client_credentials':
        requireBindingIfDemanded(client, binding);
        return this.respond(client, this.scopeFor(client, request.scope), randomUUID(), binding, deadline);
      case 'refresh_token':
        if (!client.grants.includes('refresh_token'))
          throw unauthorizedClient('this client may not use refresh tokens');
        requireBindingIfDemanded(client, binding);
        return this.refresh(client, request, binding, deadline);
      case 'authorization_code':
        throw unauthorizedClient('this client may not use the authorization code grant');
      default:
        throw unsupportedGrantType('grant_type must be client_credentials or refresh_token');
    }
  }

  /** One scope per token (docs/behaviour.md#grants-and-scopes); omitted means every scope the client holds. */
  private scopeFor(client: ClientRecord, requested: string | undefined): string {
    if (requested === undefined) return client.scopes.join(' ');
    const scopes = requested.split(' ').filter(Boolean);
    if (scopes.length !== 1) throw invalidRequest('exactly one scope may be requested');
    const [scope] = scopes as [string];
    if (!isKnownScope(scope)) throw invalidRequest('unknown scope');
    if (!client.scopes.includes(scope)) throw invalidGrant('the client was not granted this scope');
    return scope;
  }

  private async refresh(
    client: ClientRecord,
    request: TokenRequest,
    binding: Confirmation | undefined,
    deadline: DatabaseDeadline | undefined,
  ): Promise<TokenResponse> {
    if (request.refresh_token === undefined) throw invalidRequest('refresh_token is required');
    // Scope syntax is checked before the token is spent, so a malformed request costs nothing.
    const requestedScope = request.scope === undefined ? undefined : this.scopeFor(client, request.scope);
    const result = await this.refreshTokens.consume(
      this.hasher.digest(request.refresh_token),
      client.id,
      this.clock.now(),
      deadline,
    );
    switch (result.outcome) {
      case 'unknown':
        throw invalidGrant('refresh token is invalid', 'unknown refresh token');
      case 'dead':
        throw invalidGrant('refresh token is invalid', 'expired or revoked refresh token');
      case 'replayed':
        throw invalidGrant('refresh token is invalid', `refresh token reused: chain ${result.token.chainId} revoked`);
      case 'consumed':
        break;
    }
    const { token } = result;
    const stillGranted = token.scope.split(' ').every((scope) => client.scopes.includes(scope as never));
    if (!stillGranted) throw invalidGrant('the client no longer holds the scope of this refresh token');
    if (requestedScope !== undefined && requestedScope !== token.scope) {
      throw invalidGrant('a refreshed token keeps the scope of the original grant');
    }
    return this.respond(client, token.scope, token.chainId, binding, deadline);
  }

  private async respond(
    client: ClientRecord,
    scope: string,
    chainId: string,
    binding: Confirmation | undefined,
    deadline: DatabaseDeadline | undefined,
  ): Promise<TokenResponse> {
    const now = this.clock.now();
    const iat = Math.floor(now.getTime() / 1000);
    const accessToken = await this.signer.sign(
      {
        iss: this.options.issuer(),
        sub: client.id,
        client_id: client.id,
        aud: this.options.audience(),
        scope,
        institution: client.institution,
        token_use: 'access',
        iat,
        exp: iat + this.options.accessTokenTtlSeconds,
        jti: randomUUID(),
        ...(binding ? { cnf: binding } : {}),
      },
      deadline,
    );
    const response: TokenResponse = {
      access_token: accessToken,
      token_type: binding?.jkt !== undefined ? 'DPoP' : 'Bearer',
      expires_in: this.options.accessTokenTtlSeconds,
      scope,
    };
    if (!client.grants.includes('refresh_token')) return response;
    const refreshToken = this.hasher.generate(REFRESH_TOKEN_PREFIX);
    await this.refreshTokens.insert(
      {
        digest: this.hasher.digest(refreshToken),
        clientId: client.id,
        chainId,
        scope,
        issuedAt: now,
        expiresAt: new Date(now.getTime() + this.options.refreshTokenTtlSeconds * 1000),
      },
      deadline,
    );
    return { ...response, refresh_token: refreshToken };
  }
}

/** FAPI 2.0: a client registered for sender-constrained tokens never gets a bearer token. */
function requireBindingIfDemanded(client: ClientRecord, binding: Confirmation | undefined): void {
  if (!client.requireBoundTokens || binding?.jkt !== undefined || binding?.['x5t#S256'] !== undefined) return;
  throw invalidRequest(
    'this client is issued only sender-constrained tokens: send a DPoP proof (RFC 9449) or use mutual TLS (RFC 8705)',
  );
}
