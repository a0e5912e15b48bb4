/**
 * Saying why, to the right person (docs/behaviour.md#token-errors): every `invalid_client`
 * answers the same `error_description` — whatever the client and the cause, an address outside
 * the allow-list included — naming the methods coregate accepts; the server's log line names the
 * precise cause (wrong method, which claim failed, a reused jti, an unknown kid, no certificate,
 * the address), and never carries the secret or the assertion.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { createLogger } from '../../../src/adapters/logging/logger.js';
import { CLIENT_AUTHENTICATION_FAILED } from '../../../src/domain/errors.js';
import { pgliteBackend } from '../../support/backends.js';
import { basic, createHarness, TEST_ISSUER, type Harness } from '../../support/harness.js';
import { postToken } from './oauth-requests.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

describe('invalid_client: one answer for every cause, the cause in the log', () => {
  let h: Harness;
  const lines: string[] = [];
  let keyClient: { id: string; privateKey: CryptoKey; kid: string };
  before(async () => {
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    h = await createHarness(pgliteBackend, { logger, env: { LOG_LEVEL: 'info' } });
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const kid = randomUUID();
    const { client } = await h.services.clientRegistry.create({
      name: 'keys',
      authMethod: 'private_key_jwt',
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kid, use: 'sig' }] },
    });
    keyClient = { id: client.id, privateKey, kid };
  });
  after(() => h?.close());

  function assertion(claims: Record<string, unknown> = {}, kid = keyClient.kid): Promise<string> {
    const now = Math.floor(h.clock.now().getTime() / 1000);
    return new SignJWT({
      iss: keyClient.id,
      sub: keyClient.id,
      aud: TEST_ISSUER,
      jti: randomUUID(),
      exp: now + 60,
      ...claims,
    })
      .setProtectedHeader({ alg: 'EdDSA', kid })
      .sign(keyClient.privateKey);
  }

  const withAssertion = (jwt: string) =>
    postToken(h, {
      authorization: null,
      body: { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: jwt },
    });

  /** The answer is the one generic refusal; the request's log line names `cause` and none of `secrets`. */
  function assertRefused(response: LightMyRequestResponse, cause: RegExp, secrets: readonly string[] = []): void {
    assert.equal(response.statusCode, 400, response.body);
    assert.deepEqual(response.json(), { error: 'invalid_client', error_description: CLIENT_AUTHENTICATION_FAILED });
    const id = response.headers['x-request-id'];
    const own = lines.filter((line) => (JSON.parse(line) as { reqId?: unknown }).reqId === id);
    const refused = own.map((line) => JSON.parse(line) as { msg: string; err?: { detail?: string } });
    const detail = refused.find((line) => line.msg === 'oauth request refused')?.err?.detail ?? '';
    assert.match(detail, cause);
    for (const secret of secrets)
      assert.ok(!own.some((line) => line.includes(secret)), `the log never carries ${secret.slice(0, 12)}…`);
  }

  it('names the accepted methods', () => {
    for (const method of ['client_secret_basic', 'private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth'])
      assert.ok(CLIENT_AUTHENTICATION_FAILED.includes(method), method);
  });

  it('secrets: unknown client, wrong secret, the secret in the form body, a key client sending a secret', async () => {
    const client = await h.client();
    assertRefused(
      await postToken(h, { authorization: basic('cg_nobody', 'cgs_x'), body: { grant_type: 'client_credentials' } }),
      /unknown client_id/,
    );
    assertRefused(
      await postToken(h, { authorization: basic(client.id, 'cgs_wrong'), body: { grant_type: 'client_credentials' } }),
      /wrong secret/,
      ['cgs_wrong'],
    );
    assertRefused(
      await postToken(h, {
        authorization: null,
        body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret },
      }),
      /no Authorization header/,
      [client.secret],
    );
    assertRefused(
      await postToken(h, {
        authorization: basic(keyClient.id, 'cgs_guess'),
        body: { grant_type: 'client_credentials' },
      }),
      /authenticates with private_key_jwt/,
    );
  });

  it('assertions: which claim failed (aud, exp), a reused jti, an unknown kid', async () => {
    const wrongAudience = await assertion({ aud: 'https://elsewhere.example' });
    assertRefused(await withAssertion(wrongAudience), /claim aud failed/, [wrongAudience]);
    const expired = await assertion({ exp: Math.floor(h.clock.now().getTime() / 1000) - 3600 });
    assertRefused(await withAssertion(expired), /claim exp failed/, [expired]);
    const once = await assertion();
    assert.equal((await withAssertion(once)).statusCode, 200);
    assertRefused(await withAssertion(once), /replayed/, [once]);
    const unknownKid = await assertion({}, 'no-such-kid');
    assertRefused(await withAssertion(unknownKid), /no key of the client's JWKS matches .*kid "no-such-kid"/, [
      unknownKid,
    ]);
  });

  it('no certificate: a tls_client_auth client naming itself without one', async () => {
    const { client } = await h.services.clientRegistry.create({
      name: 'mtls',
      authMethod: 'tls_client_auth',
      tlsSubjectDn: 'CN=acme',
    });
    assertRefused(
      await postToken(h, { authorization: null, body: { grant_type: 'client_credentials', client_id: client.id } }),
      /no client certificate/,
    );
  });

  it('an address outside the allow-list: the same answer; the log and the audit row name the address', async () => {
    const client = await h.client({ allowedIps: ['10.9.9.0/24'] });
    const response = await postToken(h, { client, body: { grant_type: 'client_credentials' } });
    assertRefused(response, /caller 127\.0\.0\.1 outside the allow-list/);
    await h.services.audit.drain();
    const rows = await h.services.database.query<{ reason: string }>(
      `SELECT reason FROM audit_log WHERE client_id = $1 AND event_type = 'token.denied'`,
      [client.id],
    );
    assert.deepEqual(
      rows.map((row) => row.reason),
      ['ip_not_whitelisted'],
    );
  });
});
