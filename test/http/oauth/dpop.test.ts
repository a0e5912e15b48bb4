/**
 * DPoP (RFC 9449) on both backends, over a real socket: oauth4webapi's `DPoP` helper gets a
 * `token_type: DPoP` token bound to its key (`cnf.jkt`) and calls the gateway with
 * `protectedResourceRequest`; every broken proof is 401 `DPoP error="invalid_dpop_proof"`, a
 * bound token sent as Bearer is 401, a client registered for bound tokens gets no other.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { BACKENDS } from '../../support/backends.js';
import { basic, type Harness } from '../../support/harness.js';
import { listeningHarness } from '../../support/listening-harness.js';

interface ProofKey {
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
  readonly jkt: string;
}

async function proofKey(): Promise<ProofKey> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

function proof(
  key: ProofKey,
  claims: { htm: string; htu: string; accessToken?: string } & Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const { accessToken, ...rest } = claims;
  return new SignJWT({
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ...(accessToken ? { ath: createHash('sha256').update(accessToken).digest('base64url') } : {}),
    ...rest,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk, ...header })
    .sign(key.privateKey);
}

for (const backend of BACKENDS) {
  describe(`DPoP (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let url: string;
    const insecure = { [oauth.allowInsecureRequests]: true } as const;
    before(async () => {
      ({ h, url } = await listeningHarness(backend));
    });
    after(() => h?.close());

    const accounts = () => `${url}/core/accounts?customerId=nobody`;

    async function dpopToken(client: { id: string; secret: string }, key: ProofKey): Promise<Response> {
      return fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: basic(client.id, client.secret),
          'content-type': 'application/x-www-form-urlencoded',
          dpop: await proof(key, { htm: 'POST', htu: `${url}/oauth2/token` }),
        },
        body: 'grant_type=client_credentials',
      });
    }

    async function call(authorization: string, dpop?: string): Promise<Response> {
      return fetch(accounts(), { headers: { authorization, ...(dpop ? { dpop } : {}) } });
    }

    it('oauth4webapi DPoP: a DPoP token bound to its key, accepted at the gateway with protectedResourceRequest', async () => {
      const client = await h.client();
      const as = await oauth.processDiscoveryResponse(
        new URL(url),
        await oauth.discoveryRequest(new URL(url), { algorithm: 'oauth2', ...insecure }),
      );
      assert.ok((as['dpop_signing_alg_values_supported'] as string[]).includes('ES256'));
      const keyPair = await oauth.generateKeyPair('ES256');
      const dpop = oauth.DPoP({}, keyPair);
      const issued = await oauth.processClientCredentialsResponse(
        as,
        { client_id: client.id },
        await oauth.clientCredentialsGrantRequest(
          as,
          { client_id: client.id },
          oauth.ClientSecretBasic(client.secret),
          { scope: 'core/main' },
          { DPoP: dpop, ...insecure },
        ),
      );
      assert.equal(issued.token_type, 'dpop');
      assert.equal((decodeJwt(issued.access_token)['cnf'] as { jkt: string }).jkt, await dpop.calculateThumbprint());
      const response = await oauth.protectedResourceRequest(
        issued.access_token,
        'GET',
        new URL(accounts()),
        new Headers(),
        null,
        { DPoP: dpop, ...insecure },
      );
      assert.notEqual(response.status, 401, await response.text());
      // Another request, another proof: fine again.
      const again = await oauth.protectedResourceRequest(
        issued.access_token,
        'GET',
        new URL(accounts()),
        new Headers(),
        null,
        { DPoP: dpop, ...insecure },
      );
      assert.notEqual(again.status, 401);
      // A resource server on oauth4webapi accepts it too, proof and all.
      const proofForRs = await proof(
        { privateKey: keyPair.privateKey, jwk: await exportJWK(keyPair.publicKey), jkt: '' },
        { htm: 'GET', htu: `${url}/core/accounts`, accessToken: issued.access_token },
      );
      const claims = await oauth.validateJwtAccessToken(
        as,
        new Request(accounts(), { headers: { authorization: `DPoP ${issued.access_token}`, dpop: proofForRs } }),
        `${url}/core`,
        { signingAlgorithms: ['EdDSA', 'ES256'], ...insecure },
      );
      assert.equal(claims.client_id, client.id);
    });

    it('refuses a bound token sent as Bearer, without a proof, or with a broken, replayed or foreign proof', async () => {
      const client = await h.client();
      const key = await proofKey();
      const answer = await dpopToken(client, key);
      assert.equal(answer.status, 200);
      const token = ((await answer.json()) as { access_token: string; token_type: string }).access_token;
      const htu = `${url}/core/accounts`;
      const good = await proof(key, { htm: 'GET', htu, accessToken: token });
      assert.notEqual((await call(`DPoP ${token}`, good)).status, 401, 'a good proof');

      const asBearer = await call(`Bearer ${token}`);
      assert.equal(asBearer.status, 401, 'as Bearer');
      assert.match(
        String(asBearer.headers.get('www-authenticate')),
        /^DPoP error="invalid_token", error_description="the access token is DPoP-bound: send it as Authorization: DPoP <token>/,
      );
      // The holder is told why and how to present it (RFC 9449 §7.1).
      assert.match(((await asBearer.json()) as { message: string }).message, /DPoP-bound.*DPoP proof/);

      const other = await proofKey();
      const broken: Array<[string, string | undefined]> = [
        ['no proof', undefined],
        ['replayed', good],
        ['another method', await proof(key, { htm: 'POST', htu, accessToken: token })],
        ['another path', await proof(key, { htm: 'GET', htu: `${url}/core/sessions`, accessToken: token })],
        [
          'another host',
          await proof(key, { htm: 'GET', htu: 'http://elsewhere.example/core/accounts', accessToken: token }),
        ],
        [
          'htu with user information',
          await proof(key, { htm: 'GET', htu: htu.replace('://', '://someone@'), accessToken: token }),
        ],
        [
          'htu with user and password',
          await proof(key, { htm: 'GET', htu: htu.replace('://', '://someone:secret@'), accessToken: token }),
        ],
        ['no ath', await proof(key, { htm: 'GET', htu })],
        ['ath of another token', await proof(key, { htm: 'GET', htu, accessToken: `${token}x` })],
        [
          'iat two minutes old',
          await proof(key, { htm: 'GET', htu, accessToken: token, iat: Math.floor(Date.now() / 1000) - 120 }),
        ],
        [
          'iat two minutes ahead',
          await proof(key, { htm: 'GET', htu, accessToken: token, iat: Math.floor(Date.now() / 1000) + 120 }),
        ],
        ['typ JWT', await proof(key, { htm: 'GET', htu, accessToken: token }, { typ: 'JWT' })],
        ['signed by another key', await proof(other, { htm: 'GET', htu, accessToken: token })],
        [
          'header jwk not the signing key',
          await proof(key, { htm: 'GET', htu, accessToken: token }, { jwk: other.jwk }),
        ],
        ['not a JWT', 'garbage'],
      ];
      for (const [why, text] of broken) {
        const response = await call(`DPoP ${token}`, text);
        assert.equal(response.status, 401, why);
        assert.equal(response.headers.get('www-authenticate'), 'DPoP error="invalid_dpop_proof"', why);
      }
      const bearerToken = await h.token(client);
      const unbound = await call(
        `DPoP ${bearerToken}`,
        await proof(key, { htm: 'GET', htu, accessToken: bearerToken }),
      );
      assert.equal(unbound.status, 401, 'an unbound token under the DPoP scheme');
      assert.equal(unbound.headers.get('www-authenticate'), 'DPoP error="invalid_token"');
      assert.notEqual((await call(`Bearer ${bearerToken}`)).status, 401, 'bearer tokens work as before');
    });

    it('keeps the answer without a token: the Bearer challenge', async () => {
      const response = await fetch(accounts());
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    });

    it('answers invalid_dpop_proof at the token endpoint to a bad proof, and a replayed one', async () => {
      const client = await h.client();
      const key = await proofKey();
      const form = {
        authorization: basic(client.id, client.secret),
        'content-type': 'application/x-www-form-urlencoded',
      };
      const wrongHtu = await fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: { ...form, dpop: await proof(key, { htm: 'POST', htu: `${url}/oauth2/revoke` }) },
        body: 'grant_type=client_credentials',
      });
      assert.equal(wrongHtu.status, 400);
      assert.equal(((await wrongHtu.json()) as { error: string }).error, 'invalid_dpop_proof');
      const once = await proof(key, { htm: 'POST', htu: `${url}/oauth2/token` });
      assert.equal(
        (
          await fetch(`${url}/oauth2/token`, {
            method: 'POST',
            headers: { ...form, dpop: once },
            body: 'grant_type=client_credentials',
          })
        ).status,
        200,
      );
      const replay = await fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: { ...form, dpop: once },
        body: 'grant_type=client_credentials',
      });
      assert.equal(((await replay.json()) as { error: string }).error, 'invalid_dpop_proof');
    });

    it('a client registered for bound tokens gets none without a proof (invalid_request), a DPoP token with one', async () => {
      const { client, secret } = await h.services.clientRegistry.create({
        name: 'bound only',
        requireBoundTokens: true,
      });
      const created = { id: client.id, secret };
      const plain = await fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: basic(created.id, created.secret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      assert.equal(plain.status, 400);
      const body = (await plain.json()) as { error: string; error_description: string };
      assert.equal(body.error, 'invalid_request');
      assert.match(body.error_description, /DPoP/);
      const bound = await dpopToken(created, await proofKey());
      assert.equal(bound.status, 200);
      assert.equal(((await bound.json()) as { token_type: string }).token_type, 'DPoP');
    });
  });
}
