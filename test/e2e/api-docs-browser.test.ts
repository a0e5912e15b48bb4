/**
 * The API reference of a real `bin/coregate serve`: `GET /openapi.json` is the
 * committed `docs/openapi.json`, and `/docs` renders in headless Chromium — both
 * gateway endpoints and the token endpoint on the page — from files the server
 * itself serves (no CDN: every request the page makes goes to the server, and its
 * Content-Security-Policy would block any other origin).
 *
 * Chromium is Debian's (`apt-get install chromium`; `.ci/run` installs it), driven
 * by playwright-core. Without it the browser test is skipped, except under
 * `CI=true`, where it fails.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { killAll, ROOT, startServer, tempDataDir, type ServerProcess } from './support/process.js';
import { chromiumSkip, launchChromium } from './support/chromium.js';

after(killAll);

describe('API reference on a running server', { timeout: 180_000 }, () => {
  let data: { dir: string; remove: () => void };
  let server: ServerProcess;

  before(async () => {
    data = tempDataDir();
    server = await startServer({ COREGATE_DATA_DIR: data.dir });
  });
  after(async () => {
    await server?.stop().catch(() => server.kill());
    data?.remove();
  });

  it('GET /openapi.json is the committed docs/openapi.json', async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8')));
  });

  it(
    '/docs renders both gateway endpoints in headless Chromium, from this server only',
    { skip: chromiumSkip },
    async () => {
      const browser: Browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const requested: string[] = [];
        const problems: string[] = [];
        page.on('request', (request) => requested.push(request.url()));
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        page.on('pageerror', (error) => problems.push(error.message));

        const response = await page.goto(`${server.url}/docs`, { waitUntil: 'load', timeout: 15_000 });
        assert.equal(response?.status(), 200);
        await page.waitForSelector('.opblock-summary-path', { timeout: 15_000 });
        // Swagger UI breaks long paths with zero-width spaces.
        const paths = await page.$$eval('.opblock-summary-path', (elements) =>
          elements.map((element) => (element.textContent ?? '').replace(/[\u200b-\u200d\ufeff]/g, '').trim()),
        );
        for (const path of ['/core/sessions', '/core/accounts', '/oauth2/token'])
          assert.ok(paths.includes(path), `${path} on the page: ${paths.join(', ')}`);

        // An operation opens to its parameters and responses.
        await (await page.$$('.opblock-summary-path'))[paths.indexOf('/core/accounts')]!.click();
        await page.waitForSelector('.opblock-body .parameter__name', { timeout: 10_000 });
        const parameters = await page.$$eval('.opblock-body .parameter__name', (elements) =>
          elements.map((element) => element.textContent ?? ''),
        );
        assert.ok(
          parameters.some((name) => name.includes('customerId')),
          `parameters: ${parameters.join(', ')}`,
        );

        const origin = new URL(server.url).origin;
        const elsewhere = requested.filter((url) => new URL(url).origin !== origin);
        assert.deepEqual(elsewhere, [], 'every file comes from the server itself');
        assert.ok(
          requested.some((url) => url.endsWith('/swagger-ui-bundle.js')),
          requested.join(', '),
        );
        assert.deepEqual(problems, [], 'no script or Content-Security-Policy errors');
      } finally {
        await browser.close();
      }
    },
  );
});
