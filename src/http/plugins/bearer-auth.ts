/**
 * Bearer-token protection of gateway routes (RFC 6750, docs/behaviour.md#bearer-check):
 * no token → 401 `Bearer`; a bad, expired or disabled client's token → 401
 * `invalid_token`; a caller outside the client's IP allow-list → 403; a token
 * without the route's scope → 403 `insufficient_scope`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientDirectory } from '../../app/client-directory.js';
import { clientDisabled, institutionDisabled, insufficientScope, invalidToken, ipNotWhitelisted, missingToken, type ApiError, type ErrorCode } from '../../domain/errors.js';
import { DEFAULT_INSTITUTION } from '../../domain/institution.js';
import type { Clock } from '../../ports/clock.js';
import { InvalidAccessToken, type TokenVerifier } from '../../ports/token-signer.js';

/** Who is calling, established from a verified access token. */
interface Principal {
  readonly clientId: string;
  readonly platform: string;
  /** The institution the client acts for (docs/behaviour.md#institution-isolation): whose associations and core it reaches. */
  readonly institution: string;
  readonly scopes: readonly string[];
}

/** Why the bearer check refused a request, for the audit log (set just before the refusal is thrown). */
export interface AccessDenial {
  /** The code of the error answered (docs/errors.md). */
  readonly reason: ErrorCode;
  /** Only once the token is verified and names an existing client: never an unchecked claim. */
  readonly client?: { readonly clientId: string; readonly platform: string; readonly institution?: string };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller of a gateway request; null before (and without) one. */
    principal: Principal | null;
    /** Why the bearer check refused the request; null otherwise. */
    accessDenial: AccessDenial | null;
  }
}

function denied(request: FastifyRequest, error: ApiError, client?: AccessDenial['client']): ApiError {
  request.accessDenial = client ? { reason: error.code, client } : { reason: error.code };
  return error;
}

function known(client: { readonly clientId: string; readonly platform: string; readonly institution: string }): AccessDenial['client'] {
  return { clientId: client.clientId, platform: client.platform, institution: client.institution };
}

export interface BearerAuthDeps {
  readonly verifier: TokenVerifier;
  readonly clients: ClientDirectory;
  readonly clock: Clock;
  /** Whether an institution is enabled: a disabled one's clients get 503 (docs/behaviour.md#disabled-institutions). Without it, every one is. */
  readonly institutions?: { isEnabled(id: string): Promise<boolean> };
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;
const BEARER_SCHEME_WITH_CREDENTIALS = /^Bearer[ ]+\S/i;

/** An `onRequest` hook that admits only holders of a valid token with `requiredScope`. */
export function requireBearer(deps: BearerAuthDeps, requiredScope: string) {
  return async function bearerAuth(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const authorization = request.headers.authorization ?? '';
    const match = BEARER.exec(authorization);
    if (!match) {
      // "Bearer" with credentials that are not a token68 still presents a token, an invalid one:
      // telling the caller so beats "no token", which hides the mistake (RFC 6750 §3.1).
      if (BEARER_SCHEME_WITH_CREDENTIALS.test(authorization)) throw denied(request, invalidToken('malformed bearer token'));
      throw denied(request, missingToken());
    }
    let claims;
    try {
      claims = await deps.verifier.verify(match[1]!, deps.clock.now());
    } catch (error) {
      if (error instanceof InvalidAccessToken) throw denied(request, invalidToken(error.reason));
      throw error;
    }
    const client = await deps.clients.get(claims.client_id);
    if (!client) throw denied(request, invalidToken('client no longer exists'));
    if (!client.enabled) throw denied(request, clientDisabled(client.clientId), known(client));
    // A token issued for another institution than the client's now (tokens from before institutions existed were `default`'s).
    if ((claims.institution ?? DEFAULT_INSTITUTION) !== client.institution) {
      throw denied(request, invalidToken('the token was issued for another institution than the client\'s'), known(client));
    }
    if (!client.allowedIps.allows(request.ip)) {
      throw denied(request, ipNotWhitelisted(request.ip), known(client));
    }
    const scopes = claims.scope.split(' ');
    if (!scopes.includes(requiredScope)) {
      throw denied(request, insufficientScope(requiredScope), known(client));
    }
    if (deps.institutions && !(await deps.institutions.isEnabled(client.institution))) {
      throw denied(request, institutionDisabled(client.institution), known(client));
    }
    // The request's later lines (its access line, a core failure's) name the institution from here
    // (plugins/request-log.ts, plugins/error-handler.ts): a child logger per request cost more.
    request.principal = { clientId: client.clientId, platform: client.platform, institution: client.institution, scopes };
  };
}
