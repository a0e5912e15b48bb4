/**
 * The start banner: the walk-through at the server's URL, with the simulator's demo customer or,
 * for a core of the bank's own, a customer by key; a later start names the demo client and how
 * to get a new secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { welcomeFirstRun } from '../../src/server/first-run.js';
import { pgliteBackend } from '../support/backends.js';
import { createHarness, type Harness } from '../support/harness.js';

describe('start banner', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness(pgliteBackend);
  });
  after(() => h?.close());

  it('first start: the walk-through with the secret; later starts: the demo client and rotate-secret', async () => {
    let first = '';
    const simulator = { url: 'https://localhost:8443', simulatorCore: true };
    assert.equal(await welcomeFirstRun(h.services, simulator, (text) => (first += text)), true);
    assert.match(first, /built-in core simulator/);
    assert.match(first, /"socialSecurityNumber":"123-45-6789"/);
    assert.match(first, /https:\/\/localhost:8443\/oauth2\/token/);
    assert.doesNotMatch(first, /127\.0\.0\.1/);
    const clientId = /client_id: +(cg_\S+)/.exec(first)?.[1];
    assert.ok(clientId, first);
    let later = '';
    assert.equal(await welcomeFirstRun(h.services, simulator, (text) => (later += text)), false);
    assert.match(later, new RegExp(`demo client ${clientId}`));
    assert.match(later, new RegExp(`bin/coregate clients rotate-secret ${clientId}`));
    assert.doesNotMatch(later, /cgs_/, 'no secret on a later start');
  });

  it("with a core of the bank's own: no demo customer, a customer by key and the core check", async () => {
    const own = await createHarness(pgliteBackend);
    try {
      let text = '';
      assert.equal(
        await welcomeFirstRun(own.services, { url: 'http://127.0.0.1:8080', simulatorCore: false }, (t) => (text += t)),
        true,
      );
      assert.doesNotMatch(text, /socialSecurityNumber|simulator core|with the built-in core simulator/);
      assert.match(text, /"customer":\{"customerKey":"YOUR-CUSTOMER-KEY"\}/);
      assert.match(text, /bin\/coregate core check --institution default --customer-key KEY/);
    } finally {
      await own.close();
    }
  });
});
