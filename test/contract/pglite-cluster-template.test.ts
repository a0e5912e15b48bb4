/**
 * A new embedded data dir starts from the cluster template `npm ci` made
 * (`adapters/store/pglite-cluster-template.ts`), not from a new initdb: two new data dirs share
 * the template's system identifier (initdb draws a new one each time), nothing half-copied is
 * left beside them, and each opens as a working database whose schema is this code's, every
 * migration applied already. Without a template (an install that did not make one) the test is
 * skipped with the reason, except under `CI=true`. The template's name follows the migrations it
 * holds, so that a template of another schema is never copied.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { migrate } from '../../src/adapters/store/migrate.js';
import { MIGRATIONS } from '../../src/adapters/store/migrations/index.js';
import { clusterTemplateDir, clusterTemplateName } from '../../src/adapters/store/pglite-cluster-template.js';
import { PgliteDatabase } from '../../src/adapters/store/pglite-database.js';

const missing = existsSync(join(clusterTemplateDir(), 'PG_VERSION'))
  ? undefined
  : 'no cluster template (npm ci makes it: scripts/prepare.mjs)';
const skip = process.env['CI'] === 'true' ? false : (missing ?? false);

describe('the embedded cluster template', { skip }, () => {
  it('is copied into a new data dir instead of running initdb', async (t) => {
    if (missing) assert.fail(`${missing}: CI requires it`);
    const parent = mkdtempSync(join(tmpdir(), 'cg-template-'));
    t.after(() => rmSync(parent, { recursive: true, force: true }));
    const identifiers: string[] = [];
    for (const name of ['one', 'two']) {
      const db = await PgliteDatabase.open(join(parent, name));
      try {
        const rows = await db.query<{ id: string }>('select system_identifier::text as id from pg_control_system()');
        identifiers.push(rows[0]!.id);
        assert.deepEqual(await db.query('select 1 as one'), [{ one: 1 }]);
        const report = await migrate(db);
        assert.deepEqual(report.applied, [], 'every migration is in the template');
        assert.equal(report.current, Math.max(...MIGRATIONS.map((m) => m.version)));
      } finally {
        await db.close();
      }
    }
    assert.equal(identifiers[0], identifiers[1], 'both copied from one template');
    assert.deepEqual(readdirSync(parent).sort(), ['one', 'two'], 'nothing half-copied left');
  });
});

describe('the cluster template name', () => {
  it('changes with the PGlite version and with any migration', () => {
    const name = clusterTemplateName('0.5.14', MIGRATIONS);
    assert.equal(clusterTemplateName('0.5.14', MIGRATIONS), name);
    assert.notEqual(clusterTemplateName('0.5.15', MIGRATIONS), name);
    assert.notEqual(clusterTemplateName('0.5.14', MIGRATIONS.slice(0, -1)), name);
    const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, statements: [...m.statements, 'select 1'] } : m));
    assert.notEqual(clusterTemplateName('0.5.14', edited), name);
  });
});
