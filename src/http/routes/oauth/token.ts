/** `POST /oauth2/token` — spec §4.1 and §7.1, CONTRACT §3. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ClientAuthenticator } from '../../../app/authenticate-client.js';
import type { TokenIssuer } from '../../../app/issue-token.js';
import { methodNotAllowed, noStore } from '../../plugins/error-handler.js';
import { authenticateClient, authenticatedClient } from './client-authentication.js';
import { acceptRawBodies, readOAuthForm } from './oauth-body.js';

export interface TokenRouteDeps {
  readonly authenticator: ClientAuthenticator;
  readonly issuer: TokenIssuer;
}

export const TokenResponseSchema = Type.Object(
  {
    access_token: Type.String({ description: 'Signed JWT access token (EdDSA), verifiable with the JWKS' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds of validity' }),
    scope: Type.String(),
    refresh_token: Type.Optional(Type.String({ description: 'Only for clients holding the refresh_token grant; rotates on use' })),
  },
  { $id: 'TokenResponse' },
);

export const OAuthErrorSchema = Type.Object(
  {
    error: Type.Union(
      ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'unsupported_token_type'].map((code) =>
        Type.Literal(code),
      ),
    ),
    error_description: Type.Optional(Type.String()),
  },
  { $id: 'OAuthError' },
);

export async function tokenRoute(app: FastifyInstance, deps: TokenRouteDeps): Promise<void> {
  acceptRawBodies(app);
  app.route({
    method: 'POST',
    url: '/oauth2/token',
    config: { errorFormat: 'oauth' },
    schema: {
      summary: 'Obtain an access token (client_credentials or refresh_token grant)',
      tags: ['oauth'],
      security: [{ clientSecretBasic: [] }],
      consumes: ['application/x-www-form-urlencoded'],
      response: { 200: TokenResponseSchema, 400: OAuthErrorSchema },
    },
    onRequest: authenticateClient(deps.authenticator),
    handler: async (request, reply) => {
      const client = authenticatedClient(request);
      const form = readOAuthForm(request, client.id);
      const tokens = await deps.issuer.issue(client, {
        grant_type: form.get('grant_type'),
        scope: form.get('scope'),
        refresh_token: form.get('refresh_token'),
      });
      request.log.info({ clientId: client.id, scope: tokens.scope }, 'token issued');
      return noStore(reply).type('application/json;charset=UTF-8').send(tokens);
    },
  });
  app.route({
    method: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/oauth2/token',
    config: { errorFormat: 'oauth' },
    schema: { hide: true },
    handler: methodNotAllowed('POST'),
  });
}
