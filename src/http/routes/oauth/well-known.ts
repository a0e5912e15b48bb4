/** `GET /.well-known/jwks.json` and `GET /.well-known/oauth-authorization-server` (RFC 8414). */
import type { FastifyInstance } from 'fastify';
import { KNOWN_SCOPES } from '../../../domain/client.js';
import type { TokenSigner } from '../../../ports/token-signer.js';

export interface WellKnownRouteDeps {
  readonly signer: TokenSigner;
  readonly issuer: () => string;
}

export async function wellKnownRoutes(app: FastifyInstance, deps: WellKnownRouteDeps): Promise<void> {
  app.get('/.well-known/jwks.json', { schema: { summary: 'Public keys that sign access tokens', tags: ['oauth'] } }, async (_request, reply) => {
    // Short cache: after a key rotation verifiers must see the new key quickly.
    reply.header('cache-control', 'public, max-age=60');
    return deps.signer.jwks();
  });

  app.get(
    '/.well-known/oauth-authorization-server',
    { schema: { summary: 'Authorization server metadata (RFC 8414)', tags: ['oauth'] } },
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
