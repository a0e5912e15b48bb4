/** `GET /.well-known/jwks.json` and `GET /.well-known/oauth-authorization-server` (RFC 8414). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { KNOWN_SCOPES } from '../../../domain/client.js';
import type { TokenSigner } from '../../../ports/token-signer.js';

export interface WellKnownRouteDeps {
  readonly signer: TokenSigner;
  readonly issuer: () => string;
}

/**
 * The public members of an Ed25519 key (RFC 8037). The response schema is an
 * allow-list: a private member (`d`) could never be published, whatever a key holds.
 */
const PublicJwkSchema = Type.Object(
  {
    kty: Type.String({ examples: ['OKP'] }),
    crv: Type.String({ examples: ['Ed25519'] }),
    x: Type.String(),
    kid: Type.String(),
    alg: Type.String({ examples: ['EdDSA'] }),
    use: Type.String({ examples: ['sig'] }),
  },
  { additionalProperties: false },
);

const JwksSchema = Type.Object(
  { keys: Type.Array(PublicJwkSchema) },
  { $id: 'Jwks', additionalProperties: false, description: 'The active key and retired keys whose tokens may still be alive' },
);

const AuthorizationServerMetadataSchema = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
    revocation_endpoint: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
  },
  { $id: 'AuthorizationServerMetadata', additionalProperties: false, description: 'Authorization server metadata (RFC 8414 §2)' },
);

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function wellKnownRoutes(app: FastifyInstance, deps: WellKnownRouteDeps): Promise<void> {
  app.get('/.well-known/jwks.json', { schema: { summary: 'Public keys that sign access tokens', tags: ['oauth'], response: { 200: JwksSchema } } }, async (_request, reply) => {
    // Short cache: after a key rotation verifiers must see the new key quickly.
    reply.header('cache-control', 'public, max-age=60');
    return deps.signer.jwks();
  });

  app.get(
    '/.well-known/oauth-authorization-server',
    { schema: { summary: 'Authorization server metadata (RFC 8414)', tags: ['oauth'], response: { 200: AuthorizationServerMetadataSchema } } },
    async (_request, reply) => {
      const issuer = deps.issuer();
      reply.header('cache-control', 'public, max-age=300');
      return {
        issuer,
        token_endpoint: `${issuer}/oauth2/token`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        revocation_endpoint: `${issuer}/oauth2/revoke`,
        grant_types_supported: ['client_credentials', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic'],
        scopes_supported: [...KNOWN_SCOPES],
        response_types_supported: [],
      };
    },
  );
}
