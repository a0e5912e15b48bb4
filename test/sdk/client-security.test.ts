/**
 * `@coregate/client` with a bank's client security (CONTRACT §11): `privateKey`
 * (private_key_jwt, no secret anywhere) and `dpop` (a key made or given, a fresh proof per
 * request, `Authorization: DPoP`), against a listening coregate whose issuer is the URL the
 * SDK calls. A client registered for bound tokens works only with `dpop`.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CoregateClient, CoregateError } from '@coregate/client';
import { QUICKEST_BACKEND } from '../support/backends.js';
import type { Harness } from '../support/harness.js';
import { listeningHarness } from '../support/listening-harness.js';

/** Records the Authorization scheme and DPoP header of every request, by path. */
function recordingFetch(): {
  fetch: typeof fetch;
  seen: Array<{ path: string; scheme: string; dpop: boolean; body: string }>;
} {
  const seen: Array<{ path: string; scheme: string; dpop: boolean; body: string }> = [];
  return {
    seen,
    async fetch(input, init) {
      const headers = new Headers(init?.headers);
      seen.push({
        path: new URL(input instanceof Request ? input.url : input).pathname,
        scheme: (headers.get('authorization') ?? '').split(' ')[0] ?? '',
        dpop: headers.has('dpop'),
        body: typeof init?.body === 'string' ? init.body : '',
      });
      return fetch(input, init);
    },
  };
}

describe('@coregate/client: private_key_jwt and DPoP', { skip: QUICKEST_BACKEND.skip, timeout: 60_000 }, () => {
  let h: Harness;
  let url: string;
  before(async () => {
    ({ h, url } = await listeningHarness(QUICKEST_BACKEND));
  });
  after(() => h?.close());

  async function keyClient(publicKey: KeyObject, requireBoundTokens: boolean): Promise<string> {
    const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k-1' }] };
    const { client } = await h.services.clientRegistry.create({
      name: 'sdk keys',
      platform: 'sdk-bank',
      authMethod: 'private_key_jwt',
      jwks,
      requireBoundTokens,
    });
    return client.id;
  }

  for (const kind of ['ed25519', 'P-256', 'rsa'] as const) {
    it(`privateKey (${kind}) and dpop: true — registration and accounts with bound tokens`, async () => {
      const { publicKey, privateKey } =
        kind === 'ed25519'
          ? generateKeyPairSync('ed25519')
          : kind === 'P-256'
            ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
            : generateKeyPairSync('rsa', { modulusLength: 2048 });
      const clientId = await keyClient(publicKey, true);
      const recorder = recordingFetch();
      const cg = new CoregateClient({
        baseUrl: url,
        clientId,
        privateKey: kind === 'rsa' ? privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() : privateKey,
        privateKeyId: 'k-1',
        dpop: true,
        fetch: recorder.fetch,
      });
      await cg.registerCustomer({ customerId: `sdk-${kind}`, customer: { customerKey: 'C-1001' } });
      assert.equal((await cg.listAccounts(`sdk-${kind}`)).length, 3);
      const tokenRequests = recorder.seen.filter((entry) => entry.path === '/oauth2/token');
      assert.equal(tokenRequests.length, 1, 'one token for both calls');
      assert.equal(tokenRequests[0]!.scheme, '', 'no Authorization header: the assertion is in the body');
      assert.match(tokenRequests[0]!.body, /client_assertion=/);
      assert.ok(tokenRequests[0]!.dpop);
      for (const call of recorder.seen.filter((entry) => entry.path.startsWith('/core/'))) {
        assert.equal(call.scheme, 'DPoP');
        assert.ok(call.dpop, 'a proof on every call');
      }
      assert.ok(!JSON.stringify(cg).includes('PRIVATE'), 'the key does not serialize');
    });
  }

  it('clientSecret with dpop given a key: the token is bound to that key', async () => {
    const secretClient = await h.client({ platform: 'sdk-bank' });
    const dpopKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const recorder = recordingFetch();
    const cg = new CoregateClient({
      baseUrl: url,
      clientId: secretClient.id,
      clientSecret: secretClient.secret,
      dpop: { privateKey: dpopKey.privateKey },
      fetch: recorder.fetch,
    });
    await cg.registerCustomer({ customerId: 'sdk-secret-dpop', customer: { customerKey: 'C-1001' } });
    assert.equal(recorder.seen.at(-1)!.scheme, 'DPoP');
  });

  it('a client registered for bound tokens, without dpop: the token endpoint’s invalid_request as a CoregateError', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const clientId = await keyClient(publicKey, true);
    const cg = new CoregateClient({ baseUrl: url, clientId, privateKey, privateKeyId: 'k-1' });
    await assert.rejects(
      cg.listAccounts('nobody'),
      (error: unknown) => error instanceof CoregateError && error.status === 400 && error.error === 'invalid_request',
    );
  });

  it('refuses options with neither a secret nor a key, or both', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    assert.throws(() => new CoregateClient({ baseUrl: url, clientId: 'cg_x' }), TypeError);
    assert.throws(
      () => new CoregateClient({ baseUrl: url, clientId: 'cg_x', clientSecret: 's', privateKey }),
      TypeError,
    );
  });
});
