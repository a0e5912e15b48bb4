/**
 * The baseline of token issuance: panva's oidc-provider (8.x, the last line for
 * Node 20) configured like coregate's token endpoint — client_credentials,
 * client_secret_basic, JWT access tokens signed with Ed25519 (EdDSA, as coregate
 * signs) for one resource indicator, scope core/main, one hour. Clients and keys
 * are in memory; its default in-memory adapter is left as is.
 *
 * Environment: CLIENT_ID, CLIENT_SECRET. Listens on 127.0.0.1, a free port, and
 * prints "oidc-provider listening on http://…" to stderr.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Provider, { errors } from 'oidc-provider';

export const RESOURCE = 'urn:coregate:core';

const clientId = process.env.CLIENT_ID ?? 'bench-client';
const clientSecret = process.env.CLIENT_SECRET ?? randomBytes(32).toString('base64url');
const signingKey = {
  ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }),
  kid: 'bench-ed25519',
  alg: 'EdDSA',
  use: 'sig',
};

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      // Its only key is Ed25519, so every JWT it may sign says so.
      id_token_signed_response_alg: 'EdDSA',
      scope: 'core/main',
    },
  ],
  scopes: ['core/main'],
  jwks: { keys: [signingKey] },
  ttl: { ClientCredentials: 3600 },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: false },
    revocation: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => RESOURCE,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => {
        if (resource !== RESOURCE) throw new errors.InvalidTarget();
        return {
          scope: 'core/main',
          audience: RESOURCE,
          accessTokenTTL: 3600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'EdDSA' } },
        };
      },
    },
  },
});
provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider server_error: ${error.stack}\n`));
server.on('request', provider.callback());
server.keepAliveTimeout = 30_000;
process.stderr.write(`oidc-provider listening on ${issuer}\n`);
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
