/**
 * The bearer check of gateway routes → 403 (docs/behaviour.md#bearer-check): a token
 * without the route's scope (`insufficient_scope`), and a caller outside its
 * client's IP allow-list ("not whitelisted"), IPv4, IPv6 and IPv4-mapped IPv6.
 * `X-Forwarded-For` counts only with COREGATE_TRUST_PROXY.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Services } from '../../../src/server/services.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, protectedTestRoute, type Harness } from '../../support/harness.js';
import { assertAdmitted, assertEnvelope, FORBIDDEN, getProtected } from './bearer-responses.js';

/** `/test/protected` needs core/main; `/other/test/protected` needs a scope no client holds. */
async function routes(app: FastifyInstance, services: Services): Promise<void> {
  protectedTestRoute()(app, services);
  await app.register(async (scoped) => protectedTestRoute('other/scope')(scoped, services), { prefix: '/other' });
}

function assertNotWhitelisted(response: LightMyRequestResponse, why: string): void {
  const { message } = assertEnvelope(response, FORBIDDEN, why);
  assert.match(message, /not whitelisted/, why);
  assert.equal(response.headers['www-authenticate'], undefined, why);
}

for (const backend of BACKENDS) {
  describe(`bearer-protected route 403 (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend, { routes });
    });
    after(() => h?.close());

    it('answers 403 insufficient_scope to a valid token without the route’s scope', async () => {
      const token = await h.token(await h.client());
      assertAdmitted(await getProtected(h, { token }), 'the core/main route');
      const response = await getProtected(h, { token, url: '/other/test/protected' });
      assertEnvelope(response, FORBIDDEN);
      assert.equal(response.headers['www-authenticate'], 'Bearer error="insufficient_scope"');
    });

    it('admits a client without an allow-list from anywhere', async () => {
      const token = await h.token(await h.client());
      for (const remoteAddress of ['10.2.0.1', '203.0.113.9', '2001:db9::1', '::ffff:192.0.2.1']) {
        assertAdmitted(await getProtected(h, { token, remoteAddress }), remoteAddress);
      }
    });

    it('admits an IPv4 allow-list’s callers only, IPv4-mapped IPv6 included', async () => {
      const token = await h.token(await h.client({ allowedIps: ['10.1.0.0/16'] }));
      for (const remoteAddress of ['10.1.2.3', '10.1.0.0', '10.1.255.255', '::ffff:10.1.2.3']) {
        assertAdmitted(await getProtected(h, { token, remoteAddress }), remoteAddress);
      }
      for (const remoteAddress of ['10.2.0.1', '10.0.255.255', '127.0.0.1', '::ffff:10.2.0.1', '::1', '2001:db8::5']) {
        assertNotWhitelisted(await getProtected(h, { token, remoteAddress }), remoteAddress);
      }
    });

    it('admits an IPv6 allow-list’s callers only', async () => {
      const token = await h.token(await h.client({ allowedIps: ['2001:db8::/32'] }));
      for (const remoteAddress of ['2001:db8::5', '2001:db8:ffff::1', '2001:DB8::abcd']) {
        assertAdmitted(await getProtected(h, { token, remoteAddress }), remoteAddress);
      }
      for (const remoteAddress of ['2001:db9::1', '2001:db7::1', '10.1.2.3', '::ffff:10.1.2.3']) {
        assertNotWhitelisted(await getProtected(h, { token, remoteAddress }), remoteAddress);
      }
    });

    it('admits callers of any block of a list with several, and single addresses', async () => {
      const token = await h.token(await h.client({ allowedIps: ['192.0.2.7', '10.1.0.0/16', '2001:db8::/32'] }));
      for (const remoteAddress of ['192.0.2.7', '10.1.9.9', '2001:db8::1'])
        assertAdmitted(await getProtected(h, { token, remoteAddress }), remoteAddress);
      assertNotWhitelisted(await getProtected(h, { token, remoteAddress: '192.0.2.8' }), '192.0.2.8');
    });

    it('checks the IP before the scope: an outsider learns nothing about scopes', async () => {
      const token = await h.token(await h.client({ allowedIps: ['10.1.0.0/16'] }));
      assertNotWhitelisted(
        await getProtected(h, { token, remoteAddress: '10.2.0.1', url: '/other/test/protected' }),
        'outsider',
      );
    });

    it('does not believe X-Forwarded-For by default', async () => {
      const token = await h.token(await h.client({ allowedIps: ['10.1.0.0/16'] }));
      const response = await getProtected(h, {
        token,
        remoteAddress: '192.0.2.1',
        headers: { 'x-forwarded-for': '10.1.2.3' },
      });
      assertNotWhitelisted(response, 'forwarded from an allowed address');
      // Only the socket peer counts: an insider's spurious header changes nothing.
      assertAdmitted(
        await getProtected(h, { token, remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '10.2.0.1' } }),
      );
    });
  });

  describe(`bearer-protected route 403 behind a trusted proxy (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend, { routes: protectedTestRoute(), env: { COREGATE_TRUST_PROXY: 'true' } });
    });
    after(() => h?.close());

    it('checks the address X-Forwarded-For names when COREGATE_TRUST_PROXY=true', async () => {
      const token = await h.token(await h.client({ allowedIps: ['10.1.0.0/16'] }));
      assertAdmitted(
        await getProtected(h, { token, remoteAddress: '192.0.2.1', headers: { 'x-forwarded-for': '10.1.2.3' } }),
        'forwarded insider',
      );
      assertNotWhitelisted(
        await getProtected(h, { token, remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '10.2.0.1' } }),
        'forwarded outsider through an inside proxy',
      );
      assertAdmitted(await getProtected(h, { token, remoteAddress: '10.1.2.3' }), 'no header: the peer');
    });

    it('believes only the entry the proxy added, not one the caller forged before it', async () => {
      const token = await h.token(await h.client({ allowedIps: ['10.1.0.0/16'] }));
      // The caller (203.0.113.5) sent "X-Forwarded-For: 10.1.2.3"; the proxy (192.0.2.1) appended what it saw.
      const forged = { 'x-forwarded-for': '10.1.2.3, 203.0.113.5' };
      assertNotWhitelisted(
        await getProtected(h, { token, remoteAddress: '192.0.2.1', headers: forged }),
        'forged leftmost entry',
      );
      const honest = { 'x-forwarded-for': '203.0.113.5, 10.1.2.3' };
      assertAdmitted(
        await getProtected(h, { token, remoteAddress: '192.0.2.1', headers: honest }),
        'insider behind another hop',
      );
    });
  });

  describe(`bearer-protected route 403 behind listed proxies (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend, { routes: protectedTestRoute(), env: { COREGATE_TRUST_PROXY: '192.0.2.0/24' } });
    });
    after(() => h?.close());

    it('believes X-Forwarded-For only from a listed proxy', async () => {
      const token = await h.token(await h.client({ allowedIps: ['10.1.0.0/16'] }));
      assertAdmitted(
        await getProtected(h, { token, remoteAddress: '192.0.2.1', headers: { 'x-forwarded-for': '10.1.2.3' } }),
        'through a listed proxy',
      );
      assertNotWhitelisted(
        await getProtected(h, { token, remoteAddress: '198.51.100.9', headers: { 'x-forwarded-for': '10.1.2.3' } }),
        'a direct caller forging the header',
      );
    });
  });
}
