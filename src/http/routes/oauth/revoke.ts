/** `POST /oauth2/revoke` — RFC 7009 token revocation, for refresh tokens. */
import type { FastifyInstance } from 'fastify';
import type { ClientAuthenticator } from '../../../app/authenticate-client.js';
import type { TokenRevoker } from '../../../app/revoke-token.js';
import { InvalidRequest } from '../../../domain/errors.js';
import { methodNotAllowed, noStore } from '../../plugins/error-handler.js';
import { authenticateClient, authenticatedClient } from './client-authentication.js';
import { acceptRawBodies, readOAuthForm } from './oauth-body.js';
import { OAuthErrorSchema } from './token.js';

export interface RevokeRouteDeps {
  readonly authenticator: ClientAuthenticator;
  readonly revoker: TokenRevoker;
}

export async function revokeRoute(app: FastifyInstance, deps: RevokeRouteDeps): Promise<void> {
  acceptRawBodies(app);
  app.route({
    method: 'POST',
    url: '/oauth2/revoke',
    config: { errorFormat: 'oauth' },
    schema: {
      summary: 'Revoke a refresh token and every token refreshed from the same grant (RFC 7009)',
      tags: ['oauth'],
      security: [{ clientSecretBasic: [] }],
      consumes: ['application/x-www-form-urlencoded'],
      response: { 400: OAuthErrorSchema },
    },
    onRequest: authenticateClient(deps.authenticator),
    handler: async (request, reply) => {
      const client = authenticatedClient(request);
      const token = readOAuthForm(request, client.id).get('token');
      if (token === undefined) throw new InvalidRequest('token is required');
      // Access tokens are short-lived JWTs and are not revocable one by one; disabling
      // the client stops them. RFC 7009 lets a server answer 200 for tokens it ignores.
      await deps.revoker.revoke(client, token);
      return noStore(reply).code(200).send();
    },
  });
  app.route({
    method: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/oauth2/revoke',
    config: { errorFormat: 'oauth' },
    schema: { hide: true },
    handler: methodNotAllowed('POST'),
  });
}
