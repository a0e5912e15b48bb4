/**
 * Every check a request to the token endpoints (`/oauth2/token`, `/oauth2/revoke`) passes
 * before its handler, in one list and in the order they run (docs/behaviour.md#check-order).
 * Before these, the hooks every route has: the request's database deadline, one
 * `Authorization` header (and one client-certificate header) at most, the request log.
 *
 * 1. HTTPS only, when required: credentials sent in clear text are never confirmed.
 * 2. The caller's address: its request budget and its budget of failed authentications.
 * 3. Client authentication by HTTP Basic, before the body is read: bad credentials are
 *    `invalid_client` whatever the body holds.
 * 4. Once the body is read: client authentication by assertion (`private_key_jwt`) or by
 *    certificate (`tls_client_auth`), for a client that sent no Authorization header. Each
 *    method admits the client only from an address its allow-list holds.
 * 5. The authenticated client's own request budget.
 * Then the handler: the form (content type, parameters given once), `grant_type`, the other
 * parameters, the DPoP proof or the certificate the token is bound to.
 * On any error: a failed client authentication is charged to the caller's address (2).
 */
import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { ClientAuthenticator } from '../../../app/authenticate-client.js';
import type { RequestThrottle } from '../../../app/request-throttle.js';
import { requireHttps } from '../../plugins/https-only.js';
import { admitClientTokenRequest, admitTokenCaller, countAuthenticationFailure } from '../../plugins/rate-limit.js';
import {
  authenticateClient,
  authenticateClientByBody,
  type CertificateAuthentication,
} from './client-authentication.js';

export interface TokenEndpointCheckDeps {
  readonly authenticator: ClientAuthenticator;
  readonly throttle: RequestThrottle;
  /** Refuse requests that did not arrive over HTTPS (production). */
  readonly httpsOnly: boolean;
  /** Mutual TLS (RFC 8705): client authentication by certificate. */
  readonly certificates?: CertificateAuthentication | undefined;
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** The route options that hold the checks above, for `app.route({ ...tokenEndpointChecks(deps), … })`. */
export function tokenEndpointChecks(
  deps: TokenEndpointCheckDeps,
): Pick<RouteShorthandOptions, 'onRequest' | 'preValidation' | 'preHandler' | 'onError'> {
  const beforeBody: Hook[] = [
    ...(deps.httpsOnly ? [requireHttps()] : []),
    admitTokenCaller(deps.throttle),
    authenticateClient(deps.authenticator),
  ];
  return {
    onRequest: beforeBody,
    preValidation: [authenticateClientByBody(deps.authenticator, deps.certificates)],
    preHandler: [admitClientTokenRequest(deps.throttle)],
    onError: [countAuthenticationFailure(deps.throttle)],
  };
}
