/**
 * The operator console over HTTP (docs/operations.md#console): a sign-in link opens one
 * session, once, within its lifetime; the session cookie's attributes on HTTP and HTTPS;
 * the idle and absolute limits on a fake clock; every write refused without this origin or
 * the session's form token, with nothing changed; the security headers of every page; and a
 * bad value answered with the CLI's message beside its field.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { NAVIGATION } from '../../../src/console/layout.js';
import { adminOperations, executeAdminOperation } from '../../../src/server/admin-operations.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { selfSignedCertificate } from '../../support/tls.js';
import {
  consoleApp,
  formToken,
  getPage,
  linkToken,
  openLink,
  postForm,
  sessionCookie,
  signIn,
} from './console-requests.js';

const HOW_TO = 'bin/coregate console link --operator NAME';

for (const backend of BACKENDS) {
  describe(`operator console: sign-in, sessions, forms (${backend.name})`, { skip: backend.skip }, () => {
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

    it('a link signs in once; a used, forged or expired link shows why and sets no cookie', async () => {
      const token = await linkToken(h);
      const first = await openLink(app, token);
      assert.equal(first.statusCode, 200);
      assert.match(first.body, /signed in as <strong>alice<\/strong>/);
      const cookie = String(first.headers['set-cookie']);
      assert.match(cookie, /^coregate-console=[A-Za-z0-9_-]{43};/);
      for (const attribute of ['HttpOnly', 'SameSite=Strict', 'Path=/'])
        assert.ok(cookie.includes(attribute), `${attribute} in ${cookie}`);
      assert.ok(!cookie.includes('Secure'), 'no Secure attribute on plain HTTP');

      const again = await openLink(app, token);
      assert.equal(again.statusCode, 400);
      assert.match(again.body, /used already/);
      assert.equal(again.headers['set-cookie'], undefined);

      for (const forged of [randomBytes(32).toString('base64url'), 'x', `${token}x`, '']) {
        const answer = await openLink(app, forged);
        assert.equal(answer.statusCode, 400, forged);
        assert.match(answer.body, /not valid/);
        assert.equal(answer.headers['set-cookie'], undefined);
      }

      const expiring = await linkToken(h, 'bob', 60);
      h.clock.advance(60);
      const late = await openLink(app, expiring);
      assert.equal(late.statusCode, 400);
      assert.match(late.body, /has expired/);
      assert.ok(late.body.includes(HOW_TO));
      assert.equal(late.headers['set-cookie'], undefined);
    });

    it('console link through the admin operations: refused while the console is off', async () => {
      await assert.rejects(
        () => executeAdminOperation(adminOperations(h.services), 'console.link', { operator: 'alice' }),
        /the console is off: set COREGATE_CONSOLE_PORT/,
      );
      const link = await executeAdminOperation(
        adminOperations(h.services, { consoleUrl: () => 'https://ops.bank.example:8443' }),
        'console.link',
        { operator: 'alice', ttlSeconds: 120 },
      );
      assert.match(link.url, /^https:\/\/ops\.bank\.example:8443\/console\/sign-in\?token=[A-Za-z0-9_-]{43}$/);
      assert.equal(new Date(link.expiresAt).getTime() - h.clock.now().getTime(), 120_000);
      const [made] = await h.services.auditReader.list({ type: 'console.link_created', limit: 1 });
      assert.deepEqual([made?.actor, made?.reason], ['operator', 'alice']);
    });

    it('refuses a link for a bad operator name or lifetime with the CLI message', async () => {
      await assert.rejects(() => h.services.consoleSignIn.issueLink('not a name'), /invalid console link/);
      await assert.rejects(() => h.services.consoleSignIn.issueLink('alice', 3601), /invalid console link/);
    });

    it('a session ends 15 minutes after its last use, and 8 hours after sign-in however busy', async () => {
      const idle = await signIn(h, app);
      h.clock.advance(14 * 60);
      assert.equal((await getPage(app, '/console/keys', idle)).statusCode, 200);
      h.clock.advance(14 * 60);
      assert.equal((await getPage(app, '/console/keys', idle)).statusCode, 200, 'each use moves the idle limit');
      h.clock.advance(15 * 60);
      const ended = await getPage(app, '/console/keys', idle);
      assert.equal(ended.statusCode, 401);
      assert.match(ended.body, /15 minutes without activity/);
      assert.ok(ended.body.includes(HOW_TO));
      assert.equal((await getPage(app, '/console/keys', idle)).statusCode, 401, 'and stays ended');

      const busy = await signIn(h, app);
      for (let minutes = 0; minutes < 8 * 60 - 10; minutes += 10) {
        h.clock.advance(10 * 60);
        assert.equal((await getPage(app, '/console/keys', busy)).statusCode, 200, `after ${minutes + 10} minutes`);
      }
      h.clock.advance(10 * 60);
      const over = await getPage(app, '/console/keys', busy);
      assert.equal(over.statusCode, 401);
      assert.match(over.body, /8-hour limit/);
    });

    it('without a session every page says how to get a link', async () => {
      for (const [, path] of NAVIGATION) {
        const answer = await getPage(app, path);
        assert.equal(answer.statusCode, 401, path);
        assert.ok(answer.body.includes(HOW_TO), path);
      }
      const forged = await getPage(app, '/console', `coregate-console=${randomBytes(32).toString('base64url')}`);
      assert.equal(forged.statusCode, 401);
    });

    it('every page carries the security headers, and links every other page', async () => {
      const cookie = await signIn(h, app);
      for (const [name, path] of NAVIGATION) {
        const answer = await getPage(app, path, cookie);
        assert.equal(answer.statusCode, 200, `${path}: ${answer.body.slice(0, 300)}`);
        const csp = String(answer.headers['content-security-policy']);
        for (const directive of [
          "default-src 'self'",
          "frame-ancestors 'none'",
          "form-action 'self'",
          "base-uri 'none'",
        ])
          assert.ok(csp.includes(directive), `${path}: ${directive} in ${csp}`);
        assert.ok(!csp.includes('unsafe-inline'), csp);
        assert.equal(answer.headers['x-frame-options'], 'DENY');
        assert.equal(answer.headers['referrer-policy'], 'no-referrer');
        assert.equal(answer.headers['cache-control'], 'no-store');
        assert.match(String(answer.headers['content-type']), /^text\/html/);
        assert.ok(!/<script|style=/i.test(answer.body), `${path}: no inline script or style`);
        for (const [other, otherPath] of NAVIGATION)
          assert.ok(answer.body.includes(`<a href="${otherPath}"`), `${name} links ${other}`);
      }
      const css = await getPage(app, '/console/console.css');
      assert.equal(css.statusCode, 200);
      assert.match(String(css.headers['content-type']), /^text\/css/);
      assert.equal(css.headers['x-frame-options'], 'DENY');
    });

    it('refuses a write without this origin or the form token, and changes nothing', async () => {
      const cookie = await signIn(h, app);
      const token = formToken((await getPage(app, '/console/clients', cookie)).body);
      const clientsBefore = (await h.services.clientRegistry.list()).length;
      const attempts: [string, Parameters<typeof postForm>[3], Record<string, string>][] = [
        ['no form token', { cookie }, { name: 'no token' }],
        ['a wrong form token', { cookie }, { name: 'wrong token', _csrf: randomBytes(32).toString('base64url') }],
        ["another session's token", { cookie: await signIn(h, app, 'bob') }, { name: 'cross', _csrf: token }],
        ['no Origin', { cookie, origin: null }, { name: 'no origin', _csrf: token }],
        ['a foreign Origin', { cookie, origin: 'https://evil.example' }, { name: 'foreign', _csrf: token }],
        [
          'a look-alike Origin',
          { cookie, origin: 'http://console.test.evil.example' },
          { name: 'alike', _csrf: token },
        ],
        ['Origin null without Fetch Metadata', { cookie, origin: 'null' }, { name: 'null', _csrf: token }],
        [
          'Origin null from another site',
          { cookie, origin: 'null', fetchSite: 'cross-site' },
          { name: 'null cross', _csrf: token },
        ],
        [
          'a foreign Origin that claims same-origin',
          { cookie, origin: 'https://evil.example', fetchSite: 'same-origin' },
          { name: 'claims', _csrf: token },
        ],
      ];
      for (const [why, options, fields] of attempts) {
        const answer = await postForm(app, '/console/clients', fields, options);
        assert.equal(answer.statusCode, 403, why);
        assert.match(answer.body, /Nothing was changed/, why);
      }
      const noSession = await postForm(app, '/console/clients', { name: 'signed out', _csrf: token });
      assert.equal(noSession.statusCode, 401);
      assert.equal((await h.services.clientRegistry.list()).length, clientsBefore, 'no client was created');

      const made = await postForm(app, '/console/clients', { name: 'made by alice', _csrf: token }, { cookie });
      assert.equal(made.statusCode, 200, made.body);
      assert.match(made.body, /Copy the secret now/);
      // What a browser sends for the console's own form under Referrer-Policy: no-referrer.
      const underNoReferrer = await postForm(
        app,
        '/console/clients',
        { name: 'made with origin null', _csrf: token },
        { cookie, origin: 'null', fetchSite: 'same-origin' },
      );
      assert.equal(underNoReferrer.statusCode, 200, underNoReferrer.body);
      const rows = await h.services.auditReader.list({ type: 'client.created', actor: 'operator:alice' });
      assert.equal(rows.length, 2, 'the writes are audited with the operator as actor');
    });

    it('a bad value answers with the CLI message beside its field and changes nothing', async () => {
      const cookie = await signIn(h, app);
      const token = formToken((await getPage(app, '/console/clients', cookie)).body);
      const before = (await h.services.clientRegistry.list()).length;
      const answer = await postForm(
        app,
        '/console/clients',
        { name: 'bad ips', 'allow-ip': '10.0.0.0/8\nbogus', _csrf: token },
        { cookie },
      );
      assert.equal(answer.statusCode, 400);
      assert.match(
        answer.body,
        /<textarea[^>]*id="field-allow-ip"[^>]*aria-describedby="field-allow-ip-hint field-allow-ip-error"[^>]*aria-invalid="true"/,
      );
      assert.match(
        answer.body,
        /<p class="error" id="field-allow-ip-error">\s*&quot;bogus&quot; does not start with an IPv4 or IPv6 address\s*<\/p>/,
      );
      assert.equal((await h.services.clientRegistry.list()).length, before);

      const audit = await postForm(app, '/console/audit', { since: 'yesterday', _csrf: token }, { cookie });
      assert.equal(audit.statusCode, 400);
      assert.match(audit.body, /id="field-since-error">\s*must be an ISO-8601 date/);
    });

    it('signing out ends the session', async () => {
      const cookie = await signIn(h, app);
      const token = formToken((await getPage(app, '/console', cookie)).body);
      const out = await postForm(app, '/console/sign-out', { _csrf: token }, { cookie });
      assert.equal(out.statusCode, 200);
      assert.equal((await getPage(app, '/console', cookie)).statusCode, 401);
    });
  });
}

describe('operator console on HTTPS', () => {
  it('names its cookie __Host- and sends it only over HTTPS', async () => {
    const certificate = selfSignedCertificate();
    const h = await createHarness(BACKENDS[0]!);
    const { app } = await consoleApp(h, {
      key: readFileSync(certificate.keyFile),
      cert: readFileSync(certificate.certFile),
    });
    try {
      const answer = await openLink(app, await linkToken(h));
      assert.equal(answer.statusCode, 200);
      const cookie = String(answer.headers['set-cookie']);
      assert.match(cookie, /^__Host-coregate-console=/);
      for (const attribute of ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Secure'])
        assert.ok(cookie.includes(attribute), `${attribute} in ${cookie}`);
      assert.ok(!/Domain=/i.test(cookie), 'a __Host- cookie names no domain');
      const page = await app.inject({
        method: 'GET',
        url: '/console/keys',
        headers: { host: 'console.test', cookie: sessionCookie(answer) },
      });
      assert.equal(page.statusCode, 200);
    } finally {
      await app.close();
      await h.close();
      certificate.remove();
    }
  });
});
