/**
 * Operator actions on banks and webhook receivers are audit rows like the client
 * commands: actor `operator`, the institution or the platform as target,
 * the webhook endpoint id in `reason`, never a secret or an API key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminOperations, type AdminHandlers } from '../../../src/server/admin-operations.js';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';

describe('operator audit of institutions and webhooks', { skip: QUICKEST_BACKEND.skip }, () => {
  let h: Harness;
  let ops: AdminHandlers;

  before(async () => {
    h = await createHarness(QUICKEST_BACKEND);
    ops = adminOperations(h.services);
  });
  after(() => h?.close());

  async function rows(type: string) {
    return h.services.auditReader.list({ type, limit: 10 });
  }

  it('audits adding, updating, disabling and enabling a bank, naming it and nothing secret', async () => {
    await ops['institutions.add']({
      id: 'bank-audit',
      name: 'Audit Bank',
      coreUrl: 'http://127.0.0.1:1',
      coreApiKey: 'api-key-never-audited',
    });
    await ops['institutions.update']({ id: 'bank-audit', name: 'Audit Bank 2' });
    await ops['institutions.set-enabled']({ id: 'bank-audit', enabled: false });
    await ops['institutions.set-enabled']({ id: 'bank-audit', enabled: true });
    for (const type of ['institution.added', 'institution.updated', 'institution.disabled', 'institution.enabled']) {
      const [row] = await rows(type);
      assert.ok(row, `a ${type} row`);
      assert.equal(row.actor, 'operator');
      assert.equal(row.outcome, 'success');
      assert.equal(row.institution, 'bank-audit');
      assert.doesNotMatch(JSON.stringify(row), /api-key-never-audited/);
    }
  });

  it('audits adding a webhook receiver, rotating its secret and removing it, never the secret', async () => {
    const added = await ops['webhooks.add']({ platform: 'audit-platform', url: 'http://127.0.0.1:9/hook' });
    const rotated = await ops['webhooks.rotate-secret']({ id: added.id });
    await ops['webhooks.remove']({ id: added.id });
    const [addedRow] = await rows('webhook.added');
    assert.equal(addedRow?.platform, 'audit-platform');
    assert.equal(addedRow?.reason, added.id);
    assert.equal((await rows('webhook.secret_rotated'))[0]?.reason, added.id);
    assert.equal((await rows('webhook.removed'))[0]?.reason, added.id);
    const everything = JSON.stringify(await h.services.auditReader.list({ limit: 100 }));
    assert.ok(
      !everything.includes(added.secret) && !everything.includes(rotated.secret),
      'no webhook secret in the audit log',
    );
  });
});
