/**
 * What no console page may ever carry (docs/operations.md#console): after a customer is
 * registered with known demographics and a client's secret is made and rotated in the console,
 * every page — each of the navigation, each client's, a customer lookup, the audit log, a core
 * check — holds no SSN, birth date, account number, access token, sign-in link or session token,
 * and no client secret beyond the one answer that made it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { NAVIGATION } from '../../../src/console/layout.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ADA, assertSuccess, formA, postSession, usDate } from '../gateway/gateway-requests.js';
import { consoleApp, formToken, getPage, linkToken, openLink, postForm, sessionCookie } from './console-requests.js';

for (const backend of BACKENDS) {
  describe(`operator console pages hold no personal data or secrets (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let app: FastifyInstance;
    before(async () => {
      h = await createHarness(backend);
      ({ app } = await consoleApp(h));
    });
    after(async () => {
      await app?.close();
      await h?.close();
    });

    it('shows a secret once, and never an SSN, birth date, account number or token', async () => {
      const platformClient = await h.client({ platform: 'acme' });
      const accessToken = await h.token(platformClient);
      assertSuccess(await postSession(h, { token: accessToken }, formA('ada-1', ADA)));

      const link = await linkToken(h);
      const signedIn = await openLink(app, link);
      const cookie = sessionCookie(signedIn);
      const sessionToken = cookie.split('=')[1]!;
      const token = formToken((await getPage(app, '/console/clients', cookie)).body);

      const created = await postForm(app, '/console/clients', { name: 'crawled', _csrf: token }, { cookie });
      const createdSecret = /<code>\s*(cgs_[A-Za-z0-9_-]+)\s*<\/code>/.exec(created.body)?.[1];
      assert.ok(createdSecret, 'the new secret is on the answer that made it');
      const clientId = /<code>\s*(cg_[A-Za-z0-9_-]+)\s*<\/code>/.exec(created.body)![1]!;
      const rotated = await postForm(app, `/console/clients/${clientId}/rotate-secret`, { _csrf: token }, { cookie });
      const rotatedSecret = /<code>\s*(cgs_[A-Za-z0-9_-]+)\s*<\/code>/.exec(rotated.body)?.[1];
      assert.ok(rotatedSecret && rotatedSecret !== createdSecret, 'the rotated secret is on its answer');

      const pages = new Map<string, string>([['sign-in', signedIn.body]]);
      for (const [name, path] of NAVIGATION) pages.set(name, (await getPage(app, path, cookie)).body);
      for (const client of await h.services.clientRegistry.list())
        pages.set(`client ${client.id}`, (await getPage(app, `/console/clients/${client.id}`, cookie)).body);
      const lookup = await postForm(
        app,
        '/console/customers',
        { platform: 'acme', customer: 'ada-1', _csrf: token },
        { cookie },
      );
      assert.equal(lookup.statusCode, 200);
      assert.match(lookup.body, /registered/);
      pages.set('customer lookup', lookup.body);
      pages.set('audit', (await postForm(app, '/console/audit', { _csrf: token }, { cookie })).body);
      pages.set(
        'core check',
        (await postForm(app, '/console/institutions/default/core-check', { _csrf: token }, { cookie })).body,
      );

      const forbidden = new Map<string, string>([
        [ADA.socialSecurityNumber, 'SSN'],
        [ADA.socialSecurityNumber.replaceAll('-', ''), 'SSN digits'],
        [ADA.birthDay, 'birth date'],
        [usDate(ADA.birthDay), 'birth date (US)'],
        [ADA.accountNumber, 'account number'],
        [accessToken, 'access token'],
        [platformClient.secret, "the platform client's secret"],
        [createdSecret, 'the created secret'],
        [rotatedSecret, 'the rotated secret'],
        [link, 'the sign-in link token'],
        [sessionToken, 'the session token'],
      ]);
      for (const [name, body] of pages) {
        assert.ok(body.length > 200, `${name} rendered`);
        for (const [value, what] of forbidden) assert.ok(!body.includes(value), `${what} on the ${name} page`);
      }
    });
  });
}
