/**
 * Client authentication of the OAuth endpoints (client_secret_basic), as an
 * `onRequest` hook. It runs before fastify reads and parses the body, so a
 * request with bad credentials is `invalid_client` whatever its body — even a
 * body fastify itself refuses (a malformed Content-Type, one over the size
 * limit) — as CONTRACT §3 orders the checks: client authentication first.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientAuthenticator } from '../../../app/authenticate-client.js';
import type { ClientRecord } from '../../../domain/client.js';
import { parseBasicCredentials } from '../../basic-credentials.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The client authenticated by {@link authenticateClient}, on the OAuth endpoints. */
    oauthClient?: ClientRecord;
  }
}

export function authenticateClient(authenticator: ClientAuthenticator) {
  return async function clientAuthentication(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.oauthClient = await authenticator.authenticate(parseBasicCredentials(request.headers.authorization));
  };
}

/** The client {@link authenticateClient} admitted; a route without the hook is a programming error. */
export function authenticatedClient(request: FastifyRequest): ClientRecord {
  if (!request.oauthClient) throw new Error('OAuth route without the client authentication hook');
  return request.oauthClient;
}
