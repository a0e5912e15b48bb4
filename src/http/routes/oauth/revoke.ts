/** `POST /oauth2/revoke` — RFC 7009 token revocation, for refresh and access tokens. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TokenRevoker } from '../../../app/revoke-token.js';
import { invalidRequest } from '../../../domain/errors.js';
import { noStore } from '../../plugins/error-handler.js';
import { authenticatedClient } from './client-authentication.js';
import { tokenEndpointChecks, type TokenEndpointCheckDeps } from './token-endpoint-checks.js';
import { acceptRawBodies, readOAuthForm } from './oauth-body.js';
import { OAUTH_ERROR_RESPONSES, OAuthErrorSchema } from './oauth-schemas.js';

export interface RevokeRouteDeps {
  /** What runs before the handler, as at the token endpoint. */
  readonly checks: TokenEndpointCheckDeps;
  readonly revoker: TokenRevoker;
}

/**
 * The form parameters: the documented shape. As for the token endpoint
 * (`TokenRequestSchema`), the handler reads and checks the raw body itself, after
 * client authentication (docs/behaviour.md#check-order).
 */
const RevokeRequestSchema = Type.Object({
  token: Type.String({ description: 'The refresh token or access token to revoke' }),
  token_type_hint: Type.Optional(
    Type.String({
      examples: ['refresh_token', 'access_token'],
      description: 'Not needed: the two kinds cannot be mistaken for one another',
    }),
  ),
});

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function revokeRoute(app: FastifyInstance, deps: RevokeRouteDeps): Promise<void> {
  acceptRawBodies(app);
  app.route({
    method: 'POST',
    url: '/oauth2/revoke',
    config: { errorFormat: 'oauth' },
    schema: {
      summary: 'Revoke an access token, or a refresh token and every token refreshed from the same grant (RFC 7009)',
      tags: ['oauth'],
      security: [{ clientSecretBasic: [] }],
      description:
        "Client authentication as for the token endpoint. A revoked access token is refused by the gateway (401 `invalid_token`) within a second, in every process, until its `exp`. Answers 200 also for a token that is unknown, expired or another client's, and leaves it as it is (RFC 7009 §2.2).",
      consumes: ['application/x-www-form-urlencoded'],
      body: RevokeRequestSchema,
      response: {
        200: Type.Object(
          {},
          {
            additionalProperties: false,
            description:
              "Revoked, or nothing to revoke (an unknown, expired or another client's token): `{}` as `application/json` (RFC 7009 lets clients ignore the body; popular clients parse it)",
          },
        ),
        400: OAuthErrorSchema,
        ...OAUTH_ERROR_RESPONSES,
      },
    },
    // The body schema documents; readOAuthForm validates after client authentication.
    validatorCompiler: () => (value: unknown) => ({ value }),
    ...tokenEndpointChecks(deps.checks),
    handler: async (request, reply) => {
      const client = authenticatedClient(request);
      const token = readOAuthForm(request, client.id).get('token');
      if (token === undefined) throw invalidRequest('token is required');
      // RFC 7009 §2.2: 200 for tokens it ignores as well.
      await deps.revoker.revoke(client, token, request.databaseDeadline);
      noStore(reply).code(200).type('application/json;charset=UTF-8');
      return {};
    },
  });
}
