/**
 * Real OAuth libraries against a listening coregate: simple-oauth2 5 gets a token and revokes
 * it (it parses the revocation answer: `200 {}`), and the integrator guide's snippets
 * (docs/integrators.md: oauth4webapi and openid-client 6 with `algorithm: 'oauth2'`,
 * simple-oauth2 with `authorizationMethod: 'header'`) run as written. The libraries' default
 * discovery (OpenID Connect's) fails, which is why the guide names the setting.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import * as oauth4webapi from 'oauth4webapi';
import { ClientCredentials } from 'simple-oauth2';
import { pgliteBackend } from '../../support/backends.js';
import { guideSnippet, REPOSITORY_ROOT } from '../../support/guide-snippet.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { freePort } from '../../support/free-port.js';

describe('third-party OAuth clients against a running coregate', () => {
  let h: Harness;
  let url: string;
  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // The issuer is the URL the libraries discover from (openid-client checks they are equal).
    h = await createHarness(pgliteBackend, { env: { COREGATE_ISSUER: url } });
    await h.app.listen({ port, host: '127.0.0.1' });
  });
  after(() => h?.close());

  it('simple-oauth2 5: getToken with authorizationMethod header, then revoke', async () => {
    const client = await h.client({ grants: ['refresh_token'] });
    const oauth = new ClientCredentials({
      client: { id: client.id, secret: client.secret },
      auth: { tokenHost: url, tokenPath: '/oauth2/token', revokePath: '/oauth2/revoke' },
      options: { authorizationMethod: 'header' },
    });
    const token = await oauth.getToken({ scope: 'core/main' });
    assert.equal(token.token['token_type'], 'Bearer');
    assert.ok(token.token['refresh_token']);
    await token.revoke('refresh_token');
    await token.revokeAll();
    // The refresh token is gone.
    await assert.rejects(token.refresh(), /400|invalid_grant/);
  });

  it("simple-oauth2 5's default (client_secret_post) is told to use client_secret_basic", async () => {
    const client = await h.client();
    const oauth = new ClientCredentials({
      client: { id: client.id, secret: client.secret },
      auth: { tokenHost: url, tokenPath: '/oauth2/token' },
      options: { authorizationMethod: 'body' },
    });
    await assert.rejects(
      oauth.getToken({ scope: 'core/main' }),
      (error: { data?: { payload?: { error?: string; error_description?: string } } }) => {
        assert.equal(error.data?.payload?.error, 'invalid_client');
        assert.match(error.data?.payload?.error_description ?? '', /client_secret_basic/);
        return true;
      },
    );
  });

  for (const library of ['oauth4webapi', 'openid-client', 'simple-oauth2']) {
    it(`${library}: the integrator guide's snippet runs as written`, async () => {
      const client = await h.client();
      // Written inside the repository so that the library's import resolves from node_modules.
      const file = new URL(`.guide-snippet-${library}-${process.pid}.mjs`, REPOSITORY_ROOT);
      writeFileSync(file, guideSnippet(library));
      try {
        const { stdout } = await promisify(execFile)(process.execPath, [file.pathname], {
          env: { ...process.env, COREGATE_URL: url, CLIENT_ID: client.id, CLIENT_SECRET: client.secret },
          timeout: 20_000,
        });
        const answer = JSON.parse(stdout.trim()) as { token_type: string; expires_in: number };
        assert.deepEqual(
          { ...answer, token_type: answer.token_type.toLowerCase() },
          { token_type: 'bearer', expires_in: 3600 },
        );
      } finally {
        rmSync(file, { force: true });
      }
    });
  }

  it("oauth4webapi's default discovery (OpenID Connect) finds nothing: the guide's algorithm: 'oauth2' is needed", async () => {
    const issuer = new URL(url);
    const insecure = { [oauth4webapi.allowInsecureRequests]: true } as const;
    const response = await oauth4webapi.discoveryRequest(issuer, insecure);
    assert.equal(new URL(response.url).pathname, '/.well-known/openid-configuration');
    assert.equal(response.status, 404);
    await assert.rejects(oauth4webapi.processDiscoveryResponse(issuer, response));
    const metadata = await oauth4webapi.processDiscoveryResponse(
      issuer,
      await oauth4webapi.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    assert.equal(metadata.token_endpoint, `${url}/oauth2/token`);
  });
});
