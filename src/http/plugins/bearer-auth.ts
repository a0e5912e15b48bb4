/**
 * Access-token protection of gateway routes (RFC 6750, docs/behaviour.md#bearer-check):
 * no token → 401 `Bearer`; a bad, expired, revoked or disabled client's token → 401
 * `invalid_token`; a caller outside the client's IP allow-list → 403; a token
 * without the route's scope → 403 `insufficient_scope`. A DPoP-bound token (RFC 9449
 * §7) comes as `Authorization: DPoP <token>` with a `DPoP` proof of its key; a bad
 * proof → 401 `DPoP error="invalid_dpop_proof"` (docs/behaviour.md#dpop).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientDirectory } from '../../app/client-directory.js';
import {
  clientDisabled,
  institutionDisabled,
  insufficientScope,
  invalidDpopProof,
  invalidToken,
  tokenForAnotherAudience,
  boundTokenWithoutProof,
  ipNotWhitelisted,
  missingToken,
  type ApiError,
  type ErrorCode,
} from '../../domain/errors.js';
import { DEFAULT_INSTITUTION } from '../../domain/institution.js';
import type { DpopProofs } from '../../app/dpop-proofs.js';
import { InvalidProof } from '../../ports/client-proofs.js';
import { presentedCertificate, type ClientCertificateSource } from '../client-certificate.js';
import type { Clock } from '../../ports/clock.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import { AccessTokenForAnotherAudience, InvalidAccessToken, type TokenVerifier } from '../../ports/token-signer.js';

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

function known(client: {
  readonly clientId: string;
  readonly platform: string;
  readonly institution: string;
}): AccessDenial['client'] {
  return { clientId: client.clientId, platform: client.platform, institution: client.institution };
}

export interface BearerAuthDeps {
  readonly verifier: TokenVerifier;
  readonly clients: ClientDirectory;
  readonly clock: Clock;
  /** Whether an institution is enabled: a disabled one's clients get 503 (docs/behaviour.md#disabled-institutions). Without it, every one is. */
  readonly institutions?: { isEnabled(id: string, deadline?: DatabaseDeadline): Promise<boolean> };
  /** Access tokens revoked by their client (RFC 7009), held in memory; without it none is. */
  readonly revokedTokens?: { isRevoked(jti: string): boolean };
  /** DPoP-bound tokens; without it the `DPoP` scheme is not taken. */
  readonly dpop?: {
    readonly proofs: DpopProofs;
    /** The issuer's URL: a proof's `htu` is this followed by the request's path (RFC 9449 §4.3). */
    readonly issuer: () => string;
  };
  /** Where client certificates come from, for certificate-bound tokens (RFC 8705 §3); without it such tokens are refused. */
  readonly certificates?: ClientCertificateSource;
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;
const BEARER_SCHEME_WITH_CREDENTIALS = /^Bearer[ ]+\S/i;
const DPOP = /^DPoP[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;
const DPOP_SCHEME_WITH_CREDENTIALS = /^DPoP[ ]+\S/i;
const DPOP_PROOF_CHALLENGE = { 'www-authenticate': 'DPoP error="invalid_dpop_proof"' };

type Scheme = 'Bearer' | 'DPoP';

/** An `onRequest` hook that admits only holders of a valid token with `requiredScope`. */
export function requireBearer(deps: BearerAuthDeps, requiredScope: string) {
  return async function bearerAuth(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const authorization = request.headers.authorization ?? '';
    let scheme: Scheme = 'Bearer';
    let match = BEARER.exec(authorization);
    if (!match && deps.dpop && (match = DPOP.exec(authorization))) scheme = 'DPoP';
    if (!match) {
      // "Bearer" with credentials that are not a token68 still presents a token, an invalid one:
      // telling the caller so beats "no token", which hides the mistake (RFC 6750 §3.1).
      if (BEARER_SCHEME_WITH_CREDENTIALS.test(authorization))
        throw denied(request, invalidToken('malformed bearer token'));
      if (deps.dpop && DPOP_SCHEME_WITH_CREDENTIALS.test(authorization))
        throw denied(request, invalidToken('malformed DPoP token', 'DPoP'));
      throw denied(request, missingToken());
    }
    const token = match[1]!;
    // Every read below (keys, client, DPoP jti, institutions) shares the request's one deadline.
    const deadline = request.databaseDeadline;
    let claims;
    try {
      claims = await deps.verifier.verify(token, deps.clock.now(), deadline);
    } catch (error) {
      if (error instanceof AccessTokenForAnotherAudience)
        throw denied(request, tokenForAnotherAudience(error.expectedAudience, scheme));
      if (error instanceof InvalidAccessToken) throw denied(request, invalidToken(error.reason, scheme));
      throw error;
    }
    if (deps.revokedTokens?.isRevoked(claims.jti)) throw denied(request, invalidToken('the token was revoked', scheme));
    if (scheme === 'DPoP' || claims.cnf?.jkt !== undefined)
      await requireDpopProof(request, deps, token, claims.cnf?.jkt, scheme);
    const boundCertificate = claims.cnf?.['x5t#S256'];
    if (
      boundCertificate !== undefined &&
      presentedCertificate(request, deps.certificates, deps.clock.now())?.thumbprint !== boundCertificate
    ) {
      throw denied(request, boundTokenWithoutProof('certificate', scheme));
    }
    const client = await deps.clients.get(claims.client_id, deadline);
    if (!client) throw denied(request, invalidToken('client no longer exists'));
    if (!client.enabled) throw denied(request, clientDisabled(client.clientId), known(client));
    // `clients update --require-bound-tokens` holds for the tokens issued before it too, in every process
    // as soon as the change feed names the client (docs/behaviour.md#bound-tokens).
    if (client.requireBoundTokens && claims.cnf?.jkt === undefined && boundCertificate === undefined)
      throw denied(
        request,
        invalidToken(`client ${client.clientId} requires bound tokens: an unbound token was presented`, scheme),
        known(client),
      );
    // A token issued for another institution than the client's now (tokens from before institutions existed were `default`'s).
    if ((claims.institution ?? DEFAULT_INSTITUTION) !== client.institution) {
      throw denied(
        request,
        invalidToken("the token was issued for another institution than the client's"),
        known(client),
      );
    }
    if (!client.allowedIps.allows(request.ip)) {
      throw denied(request, ipNotWhitelisted(request.ip), known(client));
    }
    const scopes = claims.scope.split(' ');
    if (!scopes.includes(requiredScope)) {
      throw denied(request, insufficientScope(requiredScope), known(client));
    }
    if (deps.institutions && !(await deps.institutions.isEnabled(client.institution, deadline))) {
      throw denied(request, institutionDisabled(client.institution), known(client));
    }
    // The request's later lines (its access line, a core failure's) name the institution from here
    // (plugins/request-log.ts, plugins/error-handler.ts): a child logger per request cost more.
    request.principal = {
      clientId: client.clientId,
      platform: client.platform,
      institution: client.institution,
      scopes,
    };
  };
}

/**
 * RFC 9449 §7.1: a DPoP-bound token only under the DPoP scheme (sent as Bearer it is refused:
 * whoever holds it without the key gets nothing), with a proof signed by the bound key for this
 * request, this token (`ath`), now, used once.
 */
async function requireDpopProof(
  request: FastifyRequest,
  deps: BearerAuthDeps,
  token: string,
  jkt: string | undefined,
  scheme: Scheme,
): Promise<void> {
  if (scheme === 'Bearer') throw denied(request, boundTokenWithoutProof('dpop', scheme));
  if (jkt === undefined) throw denied(request, invalidToken('a bearer token sent with the DPoP scheme', 'DPoP'));
  const proof = request.headers['dpop'];
  if (typeof proof !== 'string')
    throw denied(
      request,
      invalidDpopProof(proof === undefined ? 'no DPoP header' : 'several DPoP headers', DPOP_PROOF_CHALLENGE),
    );
  const path = request.url.split('?', 1)[0]!;
  let verified;
  try {
    verified = await deps.dpop!.proofs.check(
      proof,
      { method: request.method, url: `${deps.dpop!.issuer()}${path}`, now: deps.clock.now(), accessToken: token },
      request.databaseDeadline,
    );
  } catch (error) {
    if (error instanceof InvalidProof) throw denied(request, invalidDpopProof(error.reason, DPOP_PROOF_CHALLENGE));
    throw error;
  }
  if (verified.jkt !== jkt)
    throw denied(
      request,
      invalidDpopProof('the proof is signed by another key than the token is bound to', DPOP_PROOF_CHALLENGE),
    );
}
