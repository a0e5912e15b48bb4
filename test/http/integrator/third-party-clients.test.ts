/**
 * Real OAuth libraries against a listening coregate (issue 14): simple-oauth2 5 gets a token and
 * revokes it (it parses the revocation answer: `200 {}`), and the README's openid-client 6
 * snippet (`algorithm: 'oauth2'`, `ClientSecretBasic`) runs as written.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ClientCredentials } from 'simple-oauth2';
import { pgliteBackend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';

const ROOT = new URL('../../../../', import.meta.url);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The code between the README's snippet markers. */
function readmeSnippet(name: string): string {
  const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
  const match = new RegExp(`<!-- snippet:${name}:start -->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\`\\n<!-- snippet:${name}:end -->`).exec(readme);
  assert.ok(match, `README has the ${name} snippet`);
  return match[1]!;
}

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
    const oauth = new ClientCredentials({ client: { id: client.id, secret: client.secret }, auth: { tokenHost: url, tokenPath: '/oauth2/token' }, options: { authorizationMethod: 'body' } });
    await assert.rejects(oauth.getToken({ scope: 'core/main' }), (error: { data?: { payload?: { error?: string; error_description?: string } } }) => {
      assert.equal(error.data?.payload?.error, 'invalid_client');
      assert.match(error.data?.payload?.error_description ?? '', /client_secret_basic/);
      return true;
    });
  });

  it("openid-client 6: the README's snippet runs as written", async () => {
    const client = await h.client();
    // Written inside the repository so that `import 'openid-client'` resolves from node_modules.
    const file = new URL(`.readme-snippet-${process.pid}.mjs`, ROOT);
    writeFileSync(file, readmeSnippet('openid-client'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [file.pathname], {
        env: { ...process.env, COREGATE_URL: url, CLIENT_ID: client.id, CLIENT_SECRET: client.secret },
        timeout: 20_000,
      });
      assert.deepEqual(JSON.parse(stdout.trim()), { token_type: 'bearer', expires_in: 3600 });
    } finally {
      rmSync(file, { force: true });
    }
  });
});
