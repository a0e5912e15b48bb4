/** `POST /oauth2/revoke` — RFC 7009 token revocation, for refresh tokens. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ClientAuthenticator } from '../../../app/authenticate-client.js';
import type { TokenRevoker } from '../../../app/revoke-token.js';
import { invalidRequest } from '../../../domain/errors.js';
import { noStore } from '../../plugins/error-handler.js';
import { authenticateClient, authenticatedClient } from './client-authentication.js';
import { acceptRawBodies, readOAuthForm } from './oauth-body.js';
import { OAUTH_ERROR_RESPONSES, OAuthErrorSchema } from './oauth-schemas.js';

export interface RevokeRouteDeps {
  readonly authenticator: ClientAuthenticator;
  readonly revoker: TokenRevoker;
}

/**
 * The form parameters: the documented shape. As for the token endpoint
 * (`TokenRequestSchema`), the handler reads and checks the raw body itself, after
 * client authentication (docs/behaviour.md#check-order).
 */
const RevokeRequestSchema = Type.Object({
  token: Type.String({ description: 'The refresh token to revoke' }),
  token_type_hint: Type.Optional(Type.String({ examples: ['refresh_token'] })),
});

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
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
      description: 'HTTP Basic client authentication as for the token endpoint. Answers 200 also for a token that is unknown, expired or not a refresh token (RFC 7009 §2.2): access tokens are short-lived and stop working when their client is disabled.',
      consumes: ['application/x-www-form-urlencoded'],
      body: RevokeRequestSchema,
      response: {
        200: Type.Object({}, { additionalProperties: false, description: 'Revoked, or nothing to revoke (an unknown, expired or access token): `{}` as `application/json` (RFC 7009 lets clients ignore the body; popular clients parse it)' }),
        400: OAuthErrorSchema,
        ...OAUTH_ERROR_RESPONSES,
      },
    },
    // The body schema documents; readOAuthForm validates after client authentication.
    validatorCompiler: () => (value: unknown) => ({ value }),
    onRequest: authenticateClient(deps.authenticator),
    handler: async (request, reply) => {
      const client = authenticatedClient(request);
      const token = readOAuthForm(request, client.id).get('token');
      if (token === undefined) throw invalidRequest('token is required');
      // Access tokens are short-lived JWTs and are not revocable one by one; disabling
      // the client stops them. RFC 7009 lets a server answer 200 for tokens it ignores.
      await deps.revoker.revoke(client, token);
      noStore(reply).code(200).type('application/json;charset=UTF-8');
      return {};
    },
  });
}
