/**
 * `private_key_jwt` (RFC 7523) at the token and revocation endpoints, on both backends,
 * with third-party clients unchanged: oauth4webapi's `PrivateKeyJwt` (EdDSA, Ed25519, ES256,
 * PS256 keys) and openid-client 6. Refusals are `invalid_client`: a replayed, expired,
 * far-future, wrongly addressed or unsigned assertion, an unknown kid, HS256, `alg: none`, an
 * `iat` in the future, an `aud` list, a JWT of another type (`dpop+jwt`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { BACKENDS } from '../../support/backends.js';
import { basic, type Harness } from '../../support/harness.js';
import { listeningHarness } from '../../support/listening-harness.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

interface KeyClient {
  readonly id: string;
  readonly privateKey: CryptoKey;
  readonly kid: string;
  readonly alg: string;
}

for (const backend of BACKENDS) {
  describe(`private_key_jwt (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let url: string;
    before(async () => {
      ({ h, url } = await listeningHarness(backend));
    });
    after(() => h?.close());

    async function keyClient(alg: 'EdDSA' | 'Ed25519' | 'ES256' | 'PS256', extra: JWK[] = []): Promise<KeyClient> {
      const { publicKey, privateKey } = await generateKeyPair(alg === 'Ed25519' ? 'EdDSA' : alg, { extractable: true });
      const kid = randomUUID();
      const jwks = { keys: [...extra, { ...(await exportJWK(publicKey)), kid, use: 'sig' }] };
      const { client, secret } = await h.services.clientRegistry.create({
        name: `keys ${alg}`,
        authMethod: 'private_key_jwt',
        jwks,
      });
      assert.equal(secret, undefined, 'no secret is made');
      assert.equal(client.authMethod, 'private_key_jwt');
      return { id: client.id, privateKey, kid, alg };
    }

    function assertion(
      client: KeyClient,
      claims: Record<string, unknown> = {},
      header: Record<string, unknown> = {},
    ): Promise<string> {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: client.id,
        sub: client.id,
        aud: url,
        jti: randomUUID(),
        iat: now,
        exp: now + 60,
        ...claims,
      })
        .setProtectedHeader({ alg: client.alg, kid: client.kid, ...header })
        .sign(client.privateKey);
    }

    async function post(
      path: string,
      form: Record<string, string>,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; body: Record<string, unknown> }> {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    function tokenWith(clientAssertion: string, extra: Record<string, string> = {}) {
      return post('/oauth2/token', {
        grant_type: 'client_credentials',
        client_assertion_type: JWT_BEARER,
        client_assertion: clientAssertion,
        ...extra,
      });
    }

    async function gatewayStatus(token: string): Promise<number> {
      const response = await fetch(`${url}/core/accounts?customerId=nobody`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await response.arrayBuffer();
      return response.status;
    }

    it('announces the method and its algorithms in the metadata', async () => {
      const metadata = (await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json()) as Record<
        string,
        string[]
      >;
      assert.ok(metadata['token_endpoint_auth_methods_supported']!.includes('client_secret_basic'));
      assert.ok(metadata['token_endpoint_auth_methods_supported']!.includes('private_key_jwt'));
      for (const alg of ['EdDSA', 'Ed25519', 'ES256', 'PS256'])
        assert.ok(metadata['token_endpoint_auth_signing_alg_values_supported']!.includes(alg), alg);
      assert.ok(!metadata['token_endpoint_auth_signing_alg_values_supported']!.includes('HS256'));
      assert.ok(metadata['revocation_endpoint_auth_methods_supported']!.includes('private_key_jwt'));
    });

    for (const alg of ['EdDSA', 'Ed25519', 'ES256', 'PS256'] as const) {
      it(`oauth4webapi PrivateKeyJwt with an ${alg} key: a token, then its revocation at the revocation endpoint`, async () => {
        const created = await keyClient(alg);
        const insecure = { [oauth.allowInsecureRequests]: true } as const;
        const as = await oauth.processDiscoveryResponse(
          new URL(url),
          await oauth.discoveryRequest(new URL(url), { algorithm: 'oauth2', ...insecure }),
        );
        const client: oauth.Client = { client_id: created.id };
        const auth = oauth.PrivateKeyJwt({ key: created.privateKey, kid: created.kid });
        const issued = await oauth.processClientCredentialsResponse(
          as,
          client,
          await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'core/main' }, insecure),
        );
        assert.equal(issued.token_type, 'bearer');
        assert.notEqual(await gatewayStatus(issued.access_token), 401);
        await oauth.processRevocationResponse(
          await oauth.revocationRequest(as, client, auth, issued.access_token, insecure),
        );
        assert.equal(await gatewayStatus(issued.access_token), 401, 'revoked');
      });
    }

    it('openid-client 6 with PrivateKeyJwt, unchanged', async () => {
      const created = await keyClient('ES256');
      const config = await openid.discovery(
        new URL(url),
        created.id,
        undefined,
        openid.PrivateKeyJwt({ key: created.privateKey, kid: created.kid }),
        {
          algorithm: 'oauth2',
          execute: [openid.allowInsecureRequests],
        },
      );
      const tokens = await openid.clientCredentialsGrant(config, { scope: 'core/main' });
      assert.equal(tokens.token_type, 'bearer');
      assert.notEqual(await gatewayStatus(tokens.access_token), 401);
    });

    it('accepts the token endpoint URL as aud, and a key among several (a rotation)', async () => {
      const old = await generateKeyPair('ES256', { extractable: true });
      const created = await keyClient('EdDSA', [{ ...(await exportJWK(old.publicKey)), kid: 'old-key' }]);
      assert.equal((await tokenWith(await assertion(created, { aud: `${url}/oauth2/token` }))).status, 200);
    });

    it('accepts typ JWT and client-authentication+jwt (draft-ietf-oauth-rfc7523bis), and no typ', async () => {
      const created = await keyClient('ES256');
      for (const typ of ['JWT', 'client-authentication+jwt', 'application/client-authentication+jwt'])
        assert.equal((await tokenWith(await assertion(created, {}, { typ }))).status, 200, typ);
    });

    it('Ed25519 and EdDSA name one algorithm: a key registered with either alg verifies a header with the other', async () => {
      for (const [registered, signed] of [
        ['EdDSA', 'Ed25519'],
        ['Ed25519', 'EdDSA'],
      ] as const) {
        const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
        const kid = randomUUID();
        const { client } = await h.services.clientRegistry.create({
          name: `alg ${registered}`,
          authMethod: 'private_key_jwt',
          jwks: { keys: [{ ...(await exportJWK(publicKey)), kid, alg: registered }] },
        });
        const answer = await tokenWith(await assertion({ id: client.id, privateKey, kid, alg: signed }));
        assert.equal(answer.status, 200, `registered ${registered}, signed ${signed}: ${JSON.stringify(answer.body)}`);
      }
    });

    it('refuses with invalid_client: a replay, expired, too far ahead, wrong aud or iss, unknown kid, alg none, HS256, a signature by another key', async () => {
      const created = await keyClient('EdDSA');
      const once = await assertion(created);
      assert.equal((await tokenWith(once)).status, 200, 'first use');
      const now = Math.floor(Date.now() / 1000);
      const stranger = await generateKeyPair('EdDSA');
      const cases: Array<[string, string]> = [
        ['replayed', once],
        ['expired', await assertion(created, { iat: now - 600, exp: now - 120 })],
        ['exp more than 5 minutes ahead', await assertion(created, { exp: now + 3600 })],
        ['iat a year in the future', await assertion(created, { iat: now + 365 * 86_400 })],
        ['aud a list naming us and another server', await assertion(created, { aud: [url, 'https://other.example'] })],
        ['aud a list of the issuer alone', await assertion(created, { aud: [url] })],
        ['typ dpop+jwt (a DPoP proof is no assertion)', await assertion(created, {}, { typ: 'dpop+jwt' })],
        ['typ at+jwt', await assertion(created, {}, { typ: 'at+jwt' })],
        ['aud another server', await assertion(created, { aud: 'https://elsewhere.example' })],
        ['aud the revocation endpoint', await assertion(created, { aud: `${url}/oauth2/revoke` })],
        ['iss another client', await assertion(created, { iss: 'cg_someoneElse00000000' })],
        ['no jti', await assertion(created, { jti: undefined })],
        ['unknown kid', await assertion(created, {}, { kid: 'not-registered' })],
        [
          'alg none',
          new UnsecuredJWT({ iss: created.id, sub: created.id, aud: url, jti: randomUUID(), exp: now + 60 }).encode(),
        ],
        [
          'HS256',
          await new SignJWT({ iss: created.id, sub: created.id, aud: url, jti: randomUUID(), exp: now + 60 })
            .setProtectedHeader({ alg: 'HS256', kid: created.kid })
            .sign(new TextEncoder().encode('x'.repeat(32))),
        ],
        [
          'signed by another key',
          await new SignJWT({ iss: created.id, sub: created.id, aud: url, jti: randomUUID(), exp: now + 60 })
            .setProtectedHeader({ alg: 'EdDSA', kid: created.kid })
            .sign(stranger.privateKey),
        ],
        ['not a JWT', 'garbage'],
      ];
      for (const [why, text] of cases) {
        const answer = await tokenWith(text);
        assert.equal(answer.status, 400, why);
        assert.equal(answer.body['error'], 'invalid_client', `${why}: ${JSON.stringify(answer.body)}`);
      }
      const wrongType = await post('/oauth2/token', {
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:example:other',
        client_assertion: await assertion(created),
      });
      assert.equal(wrongType.body['error'], 'invalid_client', 'another assertion type');
    });

    it('keeps one method per client: no Basic for a key client, no assertion for a secret client, not both at once', async () => {
      const created = await keyClient('EdDSA');
      const secretClient = await h.client();
      const basicForKeys = await post(
        '/oauth2/token',
        { grant_type: 'client_credentials' },
        { authorization: basic(created.id, 'cgs_guess') },
      );
      assert.equal(basicForKeys.body['error'], 'invalid_client');
      const now = Math.floor(Date.now() / 1000);
      const foreign = await new SignJWT({
        iss: secretClient.id,
        sub: secretClient.id,
        aud: url,
        jti: randomUUID(),
        exp: now + 60,
      })
        .setProtectedHeader({ alg: 'EdDSA', kid: created.kid })
        .sign(created.privateKey);
      assert.equal((await tokenWith(foreign)).body['error'], 'invalid_client', 'an assertion for a secret client');
      const both = await post(
        '/oauth2/token',
        {
          grant_type: 'client_credentials',
          client_assertion_type: JWT_BEARER,
          client_assertion: await assertion(created),
        },
        { authorization: basic(secretClient.id, secretClient.secret) },
      );
      assert.equal(both.body['error'], 'invalid_request', 'two methods at once');
      // Client authentication comes first (CONTRACT §3): a good assertion with a bad grant is that grant's error.
      assert.equal(
        (await tokenWith(await assertion(created), { grant_type: 'password' })).body['error'],
        'unsupported_grant_type',
        'authenticated, then the grant',
      );
      const noGrant = await post('/oauth2/token', {
        client_assertion_type: JWT_BEARER,
        client_assertion: await assertion(created),
      });
      assert.equal(noGrant.body['error'], 'invalid_request');
      const badAssertionBadGrant = await post('/oauth2/token', {
        grant_type: 'password',
        client_assertion_type: JWT_BEARER,
        client_assertion: 'garbage',
      });
      assert.equal(badAssertionBadGrant.body['error'], 'invalid_client');
    });

    it('a disabled key client is refused; its keys can be replaced, and the old key stops working', async () => {
      const created = await keyClient('EdDSA');
      await h.services.clientRegistry.setEnabled(created.id, false);
      assert.equal((await tokenWith(await assertion(created))).body['error'], 'invalid_client', 'disabled');
      await h.services.clientRegistry.setEnabled(created.id, true);
      const next = await generateKeyPair('ES256', { extractable: true });
      await h.services.clientRegistry.update(created.id, {
        jwks: { keys: [{ ...(await exportJWK(next.publicKey)), kid: 'next' }] },
      });
      assert.equal((await tokenWith(await assertion(created))).body['error'], 'invalid_client', 'the replaced key');
      assert.equal(
        (await tokenWith(await assertion({ id: created.id, privateKey: next.privateKey, kid: 'next', alg: 'ES256' })))
          .status,
        200,
        'the new key',
      );
    });

    it('refuses to register a JWKS holding a private key, or none', async () => {
      const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
      const privateJwk = await exportJWK(privateKey);
      await assert.rejects(
        h.services.clientRegistry.create({
          name: 'leaky',
          authMethod: 'private_key_jwt',
          jwks: { keys: [privateJwk] },
        }),
        /invalid client/,
      );
      await assert.rejects(
        h.services.clientRegistry.create({ name: 'keyless', authMethod: 'private_key_jwt' }),
        /invalid client/,
      );
      await assert.rejects(
        h.services.clientRegistry.create({
          name: 'symmetric',
          authMethod: 'private_key_jwt',
          jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] },
        }),
        /invalid client/,
      );
    });
  });
}

describe('private_key_jwt clients count against their own token-endpoint budget', () => {
  let h: Harness;
  let url: string;
  before(async () => {
    ({ h, url } = await listeningHarness(BACKENDS[0]!, { env: { COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: '2' } }));
  });
  after(() => h?.close());

  it('the third token request in a minute is 429, as for a secret client', async () => {
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const { client } = await h.services.clientRegistry.create({
      name: 'limited',
      authMethod: 'private_key_jwt',
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k' }] },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const now = Math.floor(Date.now() / 1000);
      const assertion = await new SignJWT({
        iss: client.id,
        sub: client.id,
        aud: url,
        jti: randomUUID(),
        exp: now + 60,
      })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'k' })
        .sign(privateKey);
      const response = await fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_assertion_type: JWT_BEARER,
          client_assertion: assertion,
        }),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    assert.deepEqual(statuses, [200, 200, 429]);
  });
});
