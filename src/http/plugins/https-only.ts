/**
 * Token and revocation requests are HTTPS only (docs/behaviour.md#https). A token endpoint
 * request that did not arrive over HTTPS — TLS to coregate itself, or `X-Forwarded-Proto:
 * https` from a trusted proxy (fastify's `request.protocol` believes the header only from a
 * proxy `COREGATE_TRUST_PROXY` trusts) — is refused with `400 invalid_request` "HTTPS is
 * required", before its credentials are checked, so that credentials sent in clear text are
 * never confirmed.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest } from '../../domain/errors.js';

export function requireHttps() {
  // eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a hook's promise; without one it waits for a done callback.
  return async function httpsOnly(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (request.protocol === 'https') return;
    throw invalidRequest('HTTPS is required', { detail: `token endpoint request over plain HTTP from ${request.ip}` });
  };
}
