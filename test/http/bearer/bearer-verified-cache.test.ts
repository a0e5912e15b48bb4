/**
 * A token's signature is verified once and remembered; its lifetime, its client's
 * status and every other check are still applied on each request.
 */
import { after, before, describe, it } from 'node:test';
import { pgliteBackend } from '../../support/backends.js';
import { createHarness, protectedTestRoute, type Harness } from '../../support/harness.js';
import { assertAdmitted, assertInvalidToken, getProtected } from './bearer-responses.js';

describe('verified-token cache (pglite)', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness(pgliteBackend, { routes: protectedTestRoute() });
  });
  after(() => h?.close());

  it('still refuses a remembered token once it expires', async () => {
    const token = await h.token(await h.client());
    assertAdmitted(await getProtected(h, { token }), 'first use: verified and remembered');
    h.clock.advance(3599);
    assertAdmitted(await getProtected(h, { token }), 'one second before exp');
    h.clock.advance(1);
    assertInvalidToken(await getProtected(h, { token }), 'at exp, from the cache');
    assertInvalidToken(await getProtected(h, { token }), 'and after');
  });

  it('still refuses a remembered token of a disabled client', async () => {
    const client = await h.client();
    const token = await h.token(client);
    assertAdmitted(await getProtected(h, { token }));
    await h.services.clientRegistry.setEnabled(client.id, false);
    h.clock.advance(31);
    assertInvalidToken(await getProtected(h, { token }), 'disabled client, token in the cache');
  });

  it('does not take a tampered token for a remembered one', async () => {
    const token = await h.token(await h.client());
    assertAdmitted(await getProtected(h, { token }));
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = signature.slice(0, -2) + (signature.at(-2) === 'A' ? 'B' : 'A') + signature.at(-1);
    assertInvalidToken(await getProtected(h, { token: `${header}.${payload}.${flipped}` }));
  });
});
