/**
 * The response schema of `GET /.well-known/jwks.json` is an allow-list of the
 * public members of a key: even a keyring that handed out a private member (`d`)
 * could not publish it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppDeps } from '../../../src/http/app.js';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness } from '../../support/harness.js';

describe('GET /.well-known/jwks.json allow-list', () => {
  it('publishes only the public members of each key', async () => {
    const key = { kty: 'OKP', crv: 'Ed25519', x: 'public-part', kid: 'k1', alg: 'EdDSA', use: 'sig' };
    const keyring = { jwks: async () => ({ keys: [{ ...key, d: 'private-part' }] }) } as unknown as AppDeps['keyring'];
    const h = await createHarness(QUICKEST_BACKEND, { app: { keyring } });
    const { app } = h;
    try {
      const response = await app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { keys: [key] });
      assert.ok(!response.body.includes('private-part'));
    } finally {
      await h.close();
    }
  });
});
