/** `GET /.well-known/jwks.json` and `GET /.well-known/oauth-authorization-server` (RFC 8414). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { KNOWN_SCOPES } from '../../../domain/client.js';
import type { TokenSigner } from '../../../ports/token-signer.js';

/** What the metadata says about client authentication and bound tokens (RFC 8414 §2, RFC 9449 §5.1, RFC 8705 §3.3). */
export interface ClientSecurityMetadata {
  /** Every client authentication method enabled. */
  readonly authMethods: readonly string[];
  /** Algorithms of `private_key_jwt` assertions. */
  readonly authSigningAlgorithms: readonly string[];
  /** Algorithms of DPoP proofs; absent when DPoP is not offered. */
  readonly dpopSigningAlgorithms?: readonly string[];
  /** Mutual TLS is configured: certificate-bound tokens can be issued. */
  readonly tlsCertificateBoundTokens?: boolean;
}

export interface WellKnownRouteDeps {
  readonly signer: TokenSigner;
  readonly issuer: () => string;
  /** Without it: `client_secret_basic` only. */
  readonly clientSecurity?: ClientSecurityMetadata;
}

/**
 * The public members of an Ed25519 (RFC 8037 §2), P-256 (RFC 7518 §6.2.1) or RSA
 * (§6.3.1) key. The response schema is an allow-list: a private member (`d`, the RSA
 * primes) could never be published, whatever a key holds.
 */
const PublicJwkSchema = Type.Object(
  {
    kty: Type.String({ examples: ['OKP'] }),
    crv: Type.Optional(Type.String({ examples: ['Ed25519'], description: 'OKP and EC keys' })),
    x: Type.Optional(Type.String({ description: 'OKP and EC keys' })),
    y: Type.Optional(Type.String({ description: 'EC keys' })),
    n: Type.Optional(Type.String({ description: 'RSA keys' })),
    e: Type.Optional(Type.String({ description: 'RSA keys' })),
    kid: Type.String(),
    alg: Type.String({
      examples: ['EdDSA'],
      description: "the key's algorithm: EdDSA, ES256 or PS256 (COREGATE_SIGNING_ALG when it was made)",
    }),
    use: Type.String({ examples: ['sig'] }),
  },
  { additionalProperties: false },
);

const JwksSchema = Type.Object(
  { keys: Type.Array(PublicJwkSchema) },
  {
    $id: 'Jwks',
    additionalProperties: false,
    description: 'The active key and retired keys whose tokens may still be alive',
  },
);

const AuthorizationServerMetadataSchema = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
    revocation_endpoint: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    token_endpoint_auth_signing_alg_values_supported: Type.Optional(Type.Array(Type.String())),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_signing_alg_values_supported: Type.Optional(Type.Array(Type.String())),
    dpop_signing_alg_values_supported: Type.Optional(Type.Array(Type.String())),
    tls_client_certificate_bound_access_tokens: Type.Optional(Type.Boolean()),
    scopes_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
  },
  {
    $id: 'AuthorizationServerMetadata',
    additionalProperties: false,
    description: 'Authorization server metadata (RFC 8414 §2)',
  },
);

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function wellKnownRoutes(app: FastifyInstance, deps: WellKnownRouteDeps): Promise<void> {
  app.get(
    '/.well-known/jwks.json',
    { schema: { summary: 'Public keys that sign access tokens', tags: ['oauth'], response: { 200: JwksSchema } } },
    async (_request, reply) => {
      // Short cache: after a key rotation verifiers must see the new key quickly.
      reply.header('cache-control', 'public, max-age=60');
      return deps.signer.jwks();
    },
  );

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        summary: 'Authorization server metadata (RFC 8414)',
        tags: ['oauth'],
        response: { 200: AuthorizationServerMetadataSchema },
      },
    },
    async (_request, reply) => {
      const issuer = deps.issuer();
      const security = deps.clientSecurity ?? { authMethods: ['client_secret_basic'], authSigningAlgorithms: [] };
      const signing = security.authSigningAlgorithms.length > 0 ? [...security.authSigningAlgorithms] : undefined;
      reply.header('cache-control', 'public, max-age=300');
      return {
        issuer,
        token_endpoint: `${issuer}/oauth2/token`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        revocation_endpoint: `${issuer}/oauth2/revoke`,
        grant_types_supported: ['client_credentials', 'refresh_token'],
        token_endpoint_auth_methods_supported: [...security.authMethods],
        ...(signing ? { token_endpoint_auth_signing_alg_values_supported: signing } : {}),
        revocation_endpoint_auth_methods_supported: [...security.authMethods],
        ...(signing ? { revocation_endpoint_auth_signing_alg_values_supported: signing } : {}),
        ...(security.dpopSigningAlgorithms
          ? { dpop_signing_alg_values_supported: [...security.dpopSigningAlgorithms] }
          : {}),
        ...(security.tlsCertificateBoundTokens ? { tls_client_certificate_bound_access_tokens: true } : {}),
        scopes_supported: [...KNOWN_SCOPES],
        response_types_supported: [],
      };
    },
  );
}
