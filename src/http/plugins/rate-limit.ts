/**
 * Rate limits at the HTTP edge (the budgets themselves: `app/request-throttle.ts`).
 * A refused request gets 429 with `Retry-After`: the TooManyRequests envelope on
 * the gateway, an OAuth body on the token endpoints (`plugins/error-handler.ts`).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rateLimitHeaders, type RequestThrottle } from '../../app/request-throttle.js';
import { ApiError } from '../../domain/errors.js';

/**
 * The gateway's budget of refusals before authentication, as hooks of the scope holding
 * `/core/*`: an address that has spent it is refused before its token is verified (register
 * before the bearer check), and every 401 of the bearer check is charged to it.
 */
export function gatewayCallerRateLimit(scope: FastifyInstance, throttle: RequestThrottle): void {
  scope.addHook('onRequest', async function gatewayCallerRateLimit(request: FastifyRequest) {
    await throttle.admitGatewayCaller(request.ip);
  });
  scope.addHook(
    'onError',
    async function countBearerFailure(request: FastifyRequest, _reply: FastifyReply, error: FastifyError) {
      if (error instanceof ApiError && error.status === 401 && request.accessDenial)
        await throttle.recordBearerFailure(request.ip);
    },
  );
}

/** `onRequest` hook for gateway routes, registered after the bearer check: a budget per client. */
export function gatewayRateLimit(throttle: RequestThrottle) {
  return async function gatewayRateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!request.principal) return;
    const quota = await throttle.admitGatewayRequest(request.principal.clientId);
    if (quota) reply.headers(rateLimitHeaders(quota));
  };
}

/** The token endpoints' budget per source address, and its failure budget, before client authentication. */
export function admitTokenCaller(throttle: RequestThrottle) {
  return async function tokenRateLimit(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    await throttle.admitTokenRequest(request.ip);
  };
}

/** The token endpoints' `onError` hook: each failed client authentication is charged to the caller's address. */
export function countAuthenticationFailure(throttle: RequestThrottle) {
  return async function countAuthenticationFailure(
    request: FastifyRequest,
    _reply: FastifyReply,
    error: FastifyError,
  ): Promise<void> {
    if (error instanceof ApiError && error.oauth.error === 'invalid_client')
      await throttle.recordAuthenticationFailure(request.ip);
  };
}

/** The token endpoints' budget per authenticated client, once client authentication is done. */
export function admitClientTokenRequest(throttle: RequestThrottle) {
  return async function clientTokenRateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!request.oauthClient) return;
    const quota = await throttle.admitClientTokenRequest(request.oauthClient.id);
    if (quota) reply.headers(rateLimitHeaders(quota));
  };
}
