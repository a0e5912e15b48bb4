/**
 * Bearer-token protection of gateway routes (RFC 6750, CONTRACT §3):
 * no token → 401 `Bearer`; a bad, expired or disabled client's token → 401
 * `invalid_token`; a caller outside the client's IP allow-list → 403; a token
 * without the route's scope → 403 `insufficient_scope`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientDirectory } from '../../app/client-directory.js';
import { Forbidden, NotAuthenticated } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import { InvalidAccessToken, type TokenVerifier } from '../../ports/token-signer.js';

/** Who is calling, established from a verified access token. */
export interface Principal {
  readonly clientId: string;
  readonly platform: string;
  readonly scopes: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export interface BearerAuthDeps {
  readonly verifier: TokenVerifier;
  readonly clients: ClientDirectory;
  readonly clock: Clock;
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;
const BEARER_SCHEME_WITH_CREDENTIALS = /^Bearer[ ]+\S/i;

function invalidToken(detail: string): NotAuthenticated {
  return new NotAuthenticated('invalid or expired access token', {}, {
    detail,
    headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
  });
}

/** An `onRequest` hook that admits only holders of a valid token with `requiredScope`. */
export function requireBearer(deps: BearerAuthDeps, requiredScope: string) {
  return async function bearerAuth(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const authorization = request.headers.authorization ?? '';
    const match = BEARER.exec(authorization);
    if (!match) {
      // "Bearer" with credentials that are not a token68 still presents a token, an invalid one:
      // telling the caller so beats "no token", which hides the mistake (RFC 6750 §3.1).
      if (BEARER_SCHEME_WITH_CREDENTIALS.test(authorization)) throw invalidToken('malformed bearer token');
      throw new NotAuthenticated('a bearer access token is required', {}, { headers: { 'www-authenticate': 'Bearer' } });
    }
    let claims;
    try {
      claims = await deps.verifier.verify(match[1]!, deps.clock.now());
    } catch (error) {
      if (error instanceof InvalidAccessToken) throw invalidToken(error.reason);
      throw error;
    }
    const client = await deps.clients.get(claims.client_id);
    if (!client) throw invalidToken('client no longer exists');
    if (!client.enabled) throw invalidToken('client is disabled');
    if (!client.allowedIps.allows(request.ip)) {
      throw new Forbidden('the caller IP address is not whitelisted for this client', {}, { detail: `caller ${request.ip}` });
    }
    const scopes = claims.scope.split(' ');
    if (!scopes.includes(requiredScope)) {
      throw new Forbidden(`the access token lacks the ${requiredScope} scope`, {}, {
        headers: { 'www-authenticate': 'Bearer error="insufficient_scope"' },
      });
    }
    request.principal = { clientId: client.clientId, platform: client.platform, scopes };
  };
}
