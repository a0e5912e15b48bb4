/**
 * Properties of `POST /oauth2/token` under arbitrary input: whatever the
 * Authorization header, Content-Type or body, the answer is a token or a
 * well-formed token error (docs/behaviour.md#token-errors) — never a 5xx, never another shape.
 * These are about parsing, so they run on PGlite only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { pgliteBackend } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { assertIssued, assertTokenError, postToken, TOKEN_ERROR_CODES, type TestClient } from './oauth-requests.js';

const RUNS = 200;

/**
 * What a server sees of a header value sent as UTF-8 bytes: Node reads header
 * bytes as latin-1, and no client can send CR, LF or other control characters.
 */
const asHeaderValue = (text: string) =>
  Buffer.from(text, 'utf8')
    .toString('latin1')
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
const base64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

/** Text rich in what trips form-decoding: escapes (complete, partial, invalid), "+", ":" and NUL. */
const percentSoup = fc.string({
  unit: fc.constantFrom('%', '%', '0', '0', 'A', 'f', 'E', 'D', '8', '+', ':', '_', 'c', '\u0000', ' '),
});
const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), percentSoup);

function authorizationHeaders(client: TestClient): fc.Arbitrary<string> {
  const scheme = fc.constantFrom('Basic', 'basic', 'BASIC', 'Bearer', 'Digest', 'Basic:', '');
  const blank = fc.constantFrom(' ', '\t', '  ', '');
  return fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }).map(asHeaderValue),
    fc.tuple(scheme, blank, fc.string()).map(([s, b, rest]) => `${s}${b}${rest}`),
    fc.tuple(scheme, blank, fc.base64String()).map(([s, b, rest]) => `${s}${b}${rest}`),
    // Random bytes, with and without a colon between two random halves.
    fc.uint8Array({ maxLength: 96 }).map((bytes) => `Basic ${base64(bytes)}`),
    fc
      .tuple(fc.uint8Array({ maxLength: 48 }), fc.uint8Array({ maxLength: 48 }))
      .map(([id, secret]) => `Basic ${base64(Buffer.concat([id, Buffer.from(':'), secret]))}`),
    // Text ids and secrets, raw and form-encoded as RFC 6749 §2.3.1 has it.
    fc.tuple(anyText, anyText).map(([id, secret]) => `Basic ${base64(`${id}:${secret}`)}`),
    fc.tuple(anyText, anyText).map(([id, secret]) => basic(id, secret)),
    // The real client id with a wrong secret, and the real secret under a wrong id.
    anyText.filter((secret) => secret !== client.secret).map((secret) => basic(client.id, secret)),
    anyText.filter((secret) => secret !== client.secret).map((secret) => `Basic ${base64(`${client.id}:${secret}`)}`),
    anyText.filter((id) => id !== client.id).map((id) => basic(id, client.secret)),
  );
}

function contentTypes(): fc.Arbitrary<string | null> {
  return fc.option(
    fc.oneof(
      fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=UTF-8',
        'application/x-www-form-urlencoded; charset=latin1',
        'application/x-www-form-urlencoded; boundary=x',
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
        '*/*',
        '',
      ),
      fc.string().map(asHeaderValue),
      fc.string().map((tail) => asHeaderValue(`application/x-www-form-urlencoded${tail}`)),
    ),
    { nil: null },
  );
}

function bodies(client: TestClient): fc.Arbitrary<string | Buffer> {
  const name = fc.oneof(
    fc.constantFrom('grant_type', 'scope', 'refresh_token', 'client_id', 'client_secret', 'code', 'token'),
    fc.string(),
  );
  const value = fc.oneof(
    fc.constantFrom(
      'client_credentials',
      'refresh_token',
      'authorization_code',
      'password',
      'core/main',
      'core/main core/main',
      'other/scope',
      '',
      client.id,
    ),
    anyText,
  );
  const pairs = fc.array(fc.tuple(name, value), { maxLength: 6 });
  // Some pairs repeated: the same parameter given twice.
  const withDuplicates = pairs.chain((list) =>
    list.length === 0 ? fc.constant(list) : fc.constantFrom(...list).map((pair) => [...list, pair]),
  );
  const encoded = fc.oneof(pairs, withDuplicates).map((list) => new URLSearchParams(list).toString());
  return fc.oneof(
    encoded,
    // A valid grant with noise appended: reaches the grant logic more often.
    encoded.map((rest) => `grant_type=client_credentials${rest ? `&${rest}` : ''}`),
    fc.string(),
    fc.string({ unit: 'binary' }),
    percentSoup,
    fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
  );
}

describe('POST /oauth2/token under arbitrary input (pglite)', () => {
  let h: Harness;
  let client: TestClient;
  before(async () => {
    h = await createHarness(pgliteBackend);
    client = await h.client({ grants: ['refresh_token'] });
  });
  after(() => h?.close());

  it('answers invalid_client to any Authorization header but the client’s own credentials', async () => {
    await fc.assert(
      fc.asyncProperty(authorizationHeaders(client), async (authorization) => {
        const response = await postToken(h, { authorization, body: 'grant_type=client_credentials' });
        assert.ok(response.statusCode < 500, `${response.statusCode} for ${JSON.stringify(authorization)}`);
        assertTokenError(response, 'invalid_client', JSON.stringify(authorization));
      }),
      { numRuns: RUNS },
    );
  });

  it('answers a token or a documented token error (never invalid_client, never 5xx) to any body from a valid client', async () => {
    const errors = TOKEN_ERROR_CODES.filter((code) => code !== 'invalid_client') as string[];
    await fc.assert(
      fc.asyncProperty(contentTypes(), bodies(client), async (contentType, body) => {
        const response = await postToken(h, { client, contentType, body });
        const why = `${JSON.stringify(contentType)} ${JSON.stringify(body.toString())}`;
        assert.ok(
          response.statusCode === 200 || response.statusCode === 400,
          `${response.statusCode} ${response.body} for ${why}`,
        );
        if (response.statusCode === 200) {
          assert.equal(typeof assertIssued(response, why).access_token, 'string');
          return;
        }
        const { error } = response.json<{ error: string }>();
        assert.ok(errors.includes(error), `${error} for ${why}`);
        assertTokenError(response, error as (typeof TOKEN_ERROR_CODES)[number], why);
      }),
      { numRuns: RUNS },
    );
  });
});
