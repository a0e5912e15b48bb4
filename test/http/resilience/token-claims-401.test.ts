/**
 * Verified token claims must also be plausible: a token signed with the
 * real key (from the keyring) but living longer than the configured TTL, dated in
 * the future, for a subject other than its client, or with a malformed client id
 * is 401 invalid_token — never accepted, never a 500.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness, TEST_ISSUER, type Harness } from '../../support/harness.js';
import type { AccessTokenClaims } from '../../../src/ports/token-signer.js';

describe('implausible claims under a good signature: 401 invalid_token', () => {
  let h: Harness;
  let clientId: string;
  before(async () => {
    h = await createHarness(QUICKEST_BACKEND);
    clientId = (await h.client()).id;
  });
  after(() => h?.close());

  function claims(overrides: Partial<Record<keyof AccessTokenClaims, unknown>>): AccessTokenClaims {
    const now = Math.floor(h.clock.now().getTime() / 1000);
    return {
      iss: TEST_ISSUER,
      sub: clientId,
      client_id: clientId,
      scope: 'core/main',
      token_use: 'access',
      iat: now,
      exp: now + 3600,
      jti: randomUUID(),
      ...overrides,
    } as AccessTokenClaims;
  }

  async function call(token: string) {
    return h.app.inject({
      method: 'GET',
      url: '/core/accounts?customerId=nobody',
      headers: { authorization: `Bearer ${token}` },
    });
  }

  it('accepts a token like the token endpoint issues', async () => {
    assert.equal((await call(await h.services.keyring.sign(claims({})))).statusCode, 404);
  });

  const now = () => Math.floor(h.clock.now().getTime() / 1000);
  const cases: Array<[string, () => Partial<Record<keyof AccessTokenClaims, unknown>>]> = [
    ['iat an hour in the future', () => ({ iat: now() + 3600, exp: now() + 7200 })],
    ['exp ten years out', () => ({ exp: now() + 10 * 365 * 86_400 })],
    ['sub other than client_id', () => ({ sub: 'cg_someone_else_entirely' })],
    ['a NUL in client_id', () => ({ client_id: `${clientId}\u0000`, sub: `${clientId}\u0000` })],
  ];
  for (const [what, override] of cases) {
    it(`refuses ${what}`, async () => {
      const response = await call(await h.services.keyring.sign(claims(override())));
      assert.equal(response.statusCode, 401, response.body);
      assert.match(String(response.headers['www-authenticate']), /error="invalid_token"/);
    });
  }
});
