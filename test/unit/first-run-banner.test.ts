/** The start banner: a later start names the demo client and how to get a new secret. */
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
    assert.equal(await welcomeFirstRun(h.services, 'http://127.0.0.1:8080', (text) => (first += text)), true);
    const clientId = /client_id: +(cg_\S+)/.exec(first)?.[1];
    assert.ok(clientId, first);
    let later = '';
    assert.equal(await welcomeFirstRun(h.services, 'http://127.0.0.1:8080', (text) => (later += text)), false);
    assert.match(later, new RegExp(`demo client ${clientId}`));
    assert.match(later, new RegExp(`bin/coregate clients rotate-secret ${clientId}`));
    assert.doesNotMatch(later, /cgs_/, 'no secret on a later start');
  });
});
