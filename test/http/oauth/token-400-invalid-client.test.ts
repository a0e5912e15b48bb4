/**
 * `POST /oauth2/token` → `invalid_client`: client_secret_basic only, credentials
 * form-urlencoded before base64 (RFC 6749 §2.3.1), and client authentication
 * checked before anything else in the request (docs/behaviour.md#check-order).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HmacCredentialHasher } from '../../../src/adapters/crypto/hmac-credential-hasher.js';
import { SqlClientStore } from '../../../src/adapters/store/sql-client-store.js';
import { encryptionKeys } from '../../../src/adapters/crypto/encryption-keys.js';
import { BACKENDS } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { assertIssued, assertTokenError, postToken, type Form, type TestClient } from './oauth-requests.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const GRANT: Form = { grant_type: 'client_credentials' };

/** Every character percent-encoded, as a (pedantic) client library may send it. */
const percentEncodeAll = (value: string) =>
  [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

for (const backend of BACKENDS) {
  describe(`POST /oauth2/token 400 invalid_client (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    const tokenWith = (authorization: string | null, body: Form = GRANT) => postToken(h, { authorization, body });

    it('refuses a request without an Authorization header', async () => {
      assertTokenError(await tokenWith(null), 'invalid_client');
    });

    it('refuses schemes other than Basic, even carrying valid credentials', async () => {
      const client = await h.client();
      const credentials = b64(`${client.id}:${client.secret}`);
      assertIssued(await tokenWith(`Basic ${credentials}`), 'the same credentials as Basic');
      for (const authorization of [
        `Bearer ${credentials}`,
        `Digest ${credentials}`,
        `Basicx ${credentials}`,
        credentials,
        'Basic',
        'Basic ',
      ]) {
        assertTokenError(await tokenWith(authorization), 'invalid_client', authorization);
      }
    });

    it('refuses credentials that are not strict base64', async () => {
      const client = await h.client();
      const credentials = b64(`${client.id}:${client.secret}`);
      const cases = [
        'Basic !!!!',
        'Basic ====',
        // Buffer.from would skip the stray characters and decode the valid credentials.
        `Basic ${credentials.slice(0, 8)}.${credentials.slice(8)}`,
        `Basic ${credentials.slice(0, 8)} ${credentials.slice(8)}`,
        `Basic ${credentials}*`,
        `Basic ${credentials} extra`,
        `Basic ${credentials.replace(/=+$/, '')}===`,
      ];
      for (const authorization of cases)
        assertTokenError(await tokenWith(authorization), 'invalid_client', authorization);
    });

    it('refuses decoded credentials without a colon, or with an empty part', async () => {
      const client = await h.client();
      for (const decoded of [`${client.id}${client.secret}`, client.id, `${client.id}:`, `:${client.secret}`, ':']) {
        assertTokenError(await tokenWith(`Basic ${b64(decoded)}`), 'invalid_client', decoded);
      }
    });

    it('refuses credentials that are not UTF-8 or not form-urlencoded', async () => {
      const client = await h.client();
      const notUtf8 = Buffer.concat([Buffer.from(`${client.id}:`), Buffer.from([0xc3, 0x28])]).toString('base64');
      assertTokenError(await tokenWith(`Basic ${notUtf8}`), 'invalid_client', 'invalid UTF-8');
      assertTokenError(
        await tokenWith(`Basic ${b64(`${client.id}:%E0%A4%A`)}`),
        'invalid_client',
        'truncated percent-escape',
      );
      assertTokenError(
        await tokenWith(`Basic ${b64(`${client.id}:%ED%A0%80`)}`),
        'invalid_client',
        'encoded lone surrogate',
      );
    });

    it('refuses credentials holding control characters, NUL included, without a server error', async () => {
      const client = await h.client();
      for (const [id, secret] of [
        [`${client.id}\u0000`, client.secret],
        ['a\u0000b', 'c'],
        [client.id, `${client.secret}\u0000`],
        [client.id, `${client.secret}\n`],
      ] as const) {
        // Raw in the decoded credentials, and percent-encoded as RFC 6749 §2.3.1 has it.
        assertTokenError(
          await tokenWith(`Basic ${b64(`${id}:${secret}`)}`),
          'invalid_client',
          JSON.stringify([id, secret]),
        );
        assertTokenError(await tokenWith(basic(id, secret)), 'invalid_client', JSON.stringify([id, secret]));
      }
    });

    it('refuses an unknown client_id', async () => {
      const client = await h.client();
      assertTokenError(await tokenWith(basic('cg_doesNotExist000000000', client.secret)), 'invalid_client');
      assertTokenError(
        await tokenWith(basic(client.id.toUpperCase(), client.secret)),
        'invalid_client',
        'ids are case-sensitive',
      );
    });

    it('refuses a wrong secret, including another client’s', async () => {
      const client = await h.client();
      const other = await h.client();
      for (const secret of [
        `${client.secret}x`,
        client.secret.slice(0, -1),
        other.secret,
        client.secret.toUpperCase(),
      ]) {
        assertTokenError(await tokenWith(basic(client.id, secret)), 'invalid_client', secret);
      }
      assertIssued(await tokenWith(basic(client.id, client.secret)));
    });

    it('refuses a disabled client, and admits it again once enabled', async () => {
      const client = await h.client();
      assertIssued(await tokenWith(basic(client.id, client.secret)), 'enabled');
      await h.services.clientRegistry.setEnabled(client.id, false);
      assertTokenError(await tokenWith(basic(client.id, client.secret)), 'invalid_client', 'disabled');
      await h.services.clientRegistry.setEnabled(client.id, true);
      assertIssued(await tokenWith(basic(client.id, client.secret)), 're-enabled');
    });

    it('refuses a secret that was rotated away', async () => {
      const client = await h.client();
      const { secret } = await h.services.clientRegistry.rotateSecret(client.id);
      assertTokenError(await tokenWith(basic(client.id, client.secret)), 'invalid_client', 'old secret');
      assertIssued(await tokenWith(basic(client.id, secret)), 'new secret');
    });

    it('form-decodes the id and the secret before comparing (RFC 6749 §2.3.1)', async () => {
      const client = await h.client();
      // Generated secrets start with "cgs_": "_" sent as %5F must decode to "_".
      assert.ok(client.secret.includes('_'));
      assertIssued(
        await tokenWith(`Basic ${b64(`${client.id}:${client.secret.replaceAll('_', '%5F')}`)}`),
        '"_" as %5F',
      );
      assertIssued(
        await tokenWith(`Basic ${b64(`${client.id.replaceAll('_', '%5f')}:${client.secret}`)}`),
        'lower-case escape in the id',
      );
      assertIssued(
        await tokenWith(`Basic ${b64(`${percentEncodeAll(client.id)}:${percentEncodeAll(client.secret)}`)}`),
        'everything escaped',
      );
      // "+" is a space in form encoding, not a literal "+" nor an underscore.
      assertTokenError(
        await tokenWith(`Basic ${b64(`${client.id}:${client.secret.replaceAll('_', '+')}`)}`),
        'invalid_client',
        '"+" for "_"',
      );
      assertTokenError(
        await tokenWith(`Basic ${b64(`${client.id}:${client.secret}+`)}`),
        'invalid_client',
        'trailing "+" is a space',
      );
    });

    it('accepts an id with ":", " " and "+" only form-encoded, as a standard client library sends it', async () => {
      // Generated ids and secrets never need encoding, so this client is stored directly, as an
      // operator import might: the decoding is what lets a ":" appear in an id at all.
      const store = new SqlClientStore(h.services.database);
      const hasher = new HmacCredentialHasher(encryptionKeys(h.services.config));
      const client: TestClient = { id: 'partner app:1+1', secret: 'a secret+with:odd%chars' };
      await store.create({
        id: client.id,
        name: 'encoded credentials',
        platform: 'encoded',
        institution: 'default',
        scopes: ['core/main'],
        grants: ['client_credentials'],
        allowedIps: [],
        secretDigest: hasher.digest(client.secret),
        createdAt: h.clock.now(),
      });
      // `basic` encodes " " as "+", "+" as %2B, ":" as %3A and "%" as %25.
      assertIssued(await tokenWith(basic(client.id, client.secret)), 'form-encoded');
      const encodeWith20 = (value: string) => encodeURIComponent(value);
      assertIssued(
        await tokenWith(`Basic ${b64(`${encodeWith20(client.id)}:${encodeWith20(client.secret)}`)}`),
        'spaces as %20',
      );
      // Unencoded, the first ":" of the id ends it, and "+" becomes a space.
      assertTokenError(
        await tokenWith(`Basic ${b64(`${client.id}:${client.secret}`)}`),
        'invalid_client',
        'not encoded',
      );
      const plusLiteral = `${encodeWith20(client.id)}:${encodeWith20(client.secret).replace('%2B', '+')}`;
      assertTokenError(
        await tokenWith(`Basic ${b64(plusLiteral)}`),
        'invalid_client',
        'literal "+" decodes to a space',
      );
    });

    it('checks client authentication before the body: bad credentials and a bad body → invalid_client', async () => {
      const client = await h.client();
      const wrong = basic(client.id, `${client.secret}x`);
      const badBodies: Array<{ why: string; contentType?: string | null; body: Form | Buffer }> = [
        { why: 'JSON body', contentType: 'application/json', body: '{"grant_type":"client_credentials"}' },
        { why: 'text/plain', contentType: 'text/plain', body: 'grant_type=client_credentials' },
        { why: 'no Content-Type', contentType: null, body: 'grant_type=client_credentials' },
        { why: 'malformed Content-Type', contentType: 'garbage;;=', body: 'grant_type=client_credentials' },
        { why: 'body over the size limit', body: `grant_type=client_credentials&pad=${'x'.repeat(20_000)}` },
        { why: 'parameter twice', body: 'grant_type=client_credentials&grant_type=client_credentials' },
        { why: 'client_secret in the body', body: { grant_type: 'client_credentials', client_secret: client.secret } },
        { why: 'no grant_type', body: '' },
        { why: 'unsupported grant_type', body: { grant_type: 'password' } },
        { why: 'authorization_code', body: { grant_type: 'authorization_code', code: 'x' } },
        { why: 'unknown scope', body: { grant_type: 'client_credentials', scope: 'other/scope' } },
        { why: 'refresh without token', body: { grant_type: 'refresh_token' } },
      ];
      for (const { why, contentType, body } of badBodies) {
        assertTokenError(
          await postToken(h, { authorization: wrong, contentType, body }),
          'invalid_client',
          `wrong secret, ${why}`,
        );
        assertTokenError(
          await postToken(h, { authorization: null, contentType, body }),
          'invalid_client',
          `no credentials, ${why}`,
        );
      }
    });
  });
}
