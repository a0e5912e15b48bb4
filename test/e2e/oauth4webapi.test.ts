/**
 * A third-party OAuth 2.0 client library (oauth4webapi) against a running coregate,
 * over a real socket: discovery (RFC 8414), client_credentials, refresh_token, and
 * verification of the access tokens with jose against the served JWKS.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { killAll, runJson, startServer, tempDataDir, type CreatedClient } from './support/process.js';

after(killAll);

describe('oauth4webapi against a running coregate', { timeout: 240_000 }, () => {
  it('discovers, obtains a token with client_credentials, refreshes it, and every token verifies', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };
    const server = await startServer(env);
    t.after(() => server.kill());
    const created = await runJson<CreatedClient>(
      ['clients', 'create', '--name', 'oauth4webapi', '--grant', 'refresh_token', '--json'],
      env,
    );

    const insecure = { [oauth.allowInsecureRequests]: true } as const;
    const issuer = new URL(server.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    assert.equal(as.token_endpoint, `${server.url}/oauth2/token`);
    assert.ok(as.jwks_uri);
    assert.ok(as.token_endpoint_auth_methods_supported?.includes('client_secret_basic'));

    const client: oauth.Client = { client_id: created.client_id };
    const clientAuth = oauth.ClientSecretBasic(created.client_secret);
    const jwks = createRemoteJWKSet(new URL(as.jwks_uri));
    const verify = async (token: string) => {
      const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: as.issuer });
      assert.equal(protectedHeader.typ, 'at+jwt');
      assert.equal(payload.sub, created.client_id);
      assert.equal(payload['client_id'], created.client_id);
      assert.equal(payload['scope'], 'core/main');
      return payload;
    };

    const issued = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, clientAuth, { scope: 'core/main' }, insecure),
    );
    assert.equal(issued.token_type, 'bearer');
    assert.equal(issued.expires_in, 3600);
    assert.ok(issued.refresh_token?.startsWith('cgr_'));
    const first = await verify(issued.access_token);
    // RFC 9068: a resource server built on oauth4webapi accepts it for the gateway's audience, and jose with an audience check too.
    const gateway = `${server.url}/core`;
    const validated = await oauth.validateJwtAccessToken(
      as,
      new Request(`${gateway}/accounts`, { headers: { authorization: `Bearer ${issued.access_token}` } }),
      gateway,
      { signingAlgorithms: ['EdDSA'], ...insecure },
    );
    assert.equal(validated.client_id, created.client_id);
    assert.equal(
      (await jwtVerify(issued.access_token, jwks, { issuer: as.issuer, audience: gateway })).payload.aud,
      gateway,
    );

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, issued.refresh_token!, insecure),
    );
    assert.ok(refreshed.refresh_token?.startsWith('cgr_'));
    assert.notEqual(refreshed.refresh_token, issued.refresh_token, 'refresh tokens rotate');
    const second = await verify(refreshed.access_token);
    assert.notEqual(second.jti, first.jti);

    // Presenting the used refresh token again is refused, and revokes the newer one too.
    await assert.rejects(
      async () =>
        oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, clientAuth, issued.refresh_token!, insecure),
        ),
      (error: unknown) => error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant',
    );
    await assert.rejects(
      async () =>
        oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, insecure),
        ),
      (error: unknown) => error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant',
    );

    // A wrong secret is a client authentication failure the library reports as such.
    await assert.rejects(
      async () =>
        oauth.processClientCredentialsResponse(
          as,
          client,
          await oauth.clientCredentialsGrantRequest(
            as,
            client,
            oauth.ClientSecretBasic(`${created.client_secret}x`),
            { scope: 'core/main' },
            insecure,
          ),
        ),
      (error: unknown) => error instanceof oauth.ResponseBodyError && error.error === 'invalid_client',
    );

    assert.equal((await server.stop()).code, 0);
  });
});
