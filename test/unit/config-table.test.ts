/**
 * The settings schema is the one source: the README's configuration table is what
 * it generates (`npm run config-table` writes it), the documented variables keep
 * their names and defaults, and every setting is documented.
 */
import { TypeGuard } from '@sinclair/typebox';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DEFAULTS, loadConfig } from '../../src/config/config.js';
import { settingSchemas } from '../../src/config/schema.js';
import {
  CONFIG_TABLE_END,
  CONFIG_TABLE_START,
  configTable,
  describeSettings,
  settingsHelp,
  withConfigTable,
} from '../../src/config/settings-table.js';

/** The repository root's README (this file runs from `dist/test/unit/`). */
const README = new URL('../../../README.md', import.meta.url);

describe('the configuration table', () => {
  it("README.md's table is what the schema generates (run `npm run config-table` after changing a setting)", () => {
    const readme = readFileSync(README, 'utf8');
    assert.ok(
      readme.includes(CONFIG_TABLE_START) && readme.includes(CONFIG_TABLE_END),
      'the README has the config-table markers',
    );
    assert.ok(
      withConfigTable(readme) === readme,
      "README.md's configuration table is out of date: run `npm run config-table` and commit it",
    );
  });

  it('replaces only what lies between the markers', () => {
    const readme = `# title\n${CONFIG_TABLE_START}\n| stale |\n${CONFIG_TABLE_END}\nafter\n`;
    assert.equal(
      withConfigTable(readme),
      `# title\n${CONFIG_TABLE_START}\n${configTable()}${CONFIG_TABLE_END}\nafter\n`,
    );
    assert.throws(() => withConfigTable('# no markers\n'), /markers/);
  });

  it('has a row for every setting, each with a description', () => {
    const names = settingSchemas().map(([name]) => name);
    const rows = configTable()
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    assert.deepEqual(
      rows.map((row) => /^\| `([A-Z0-9_]+)`/.exec(row)?.[1]),
      names,
    );
    for (const setting of describeSettings()) assert.ok(setting.description.length > 0, `${setting.name} is described`);
    for (const name of names) assert.ok(settingsHelp().includes(`  ${name} (default: `), `--help lists ${name}`);
    assert.ok(!settingsHelp().includes('`'), '--help prints plain text');
  });
});

describe('the settings schema', () => {
  it('keeps the documented variables with their defaults', () => {
    const names = new Set<string>(settingSchemas().map(([name]) => name));
    for (const name of [
      'PORT',
      'HOST',
      'DATABASE_URL',
      'COREGATE_DATA_DIR',
      'CORE_URL',
      'COREGATE_ENCRYPTION_KEY',
      'COREGATE_SESSION_SKEW_SECONDS',
      'COREGATE_ACCESS_TOKEN_TTL_SECONDS',
      'LOG_LEVEL',
    ]) {
      assert.ok(names.has(name), name);
    }
    assert.equal(DEFAULTS.PORT, 8080);
    assert.equal(DEFAULTS.HOST, '127.0.0.1');
    assert.equal(DEFAULTS.COREGATE_DATA_DIR, './data');
    assert.equal(DEFAULTS.COREGATE_SESSION_SKEW_SECONDS, 30);
    assert.equal(DEFAULTS.COREGATE_ACCESS_TOKEN_TTL_SECONDS, 3600);
    assert.equal(DEFAULTS.LOG_LEVEL, 'info');
    for (const unset of ['DATABASE_URL', 'CORE_URL', 'COREGATE_ENCRYPTION_KEY'])
      assert.ok(!(unset in DEFAULTS), `${unset} has no default`);
  });

  it('gives every setting that is not optional a default, and the defaults pass validation', () => {
    for (const [name, schema] of settingSchemas()) {
      assert.ok(TypeGuard.IsOptional(schema) || 'default' in schema, `${name}: a default, or Type.Optional`);
    }
    assert.doesNotThrow(() => loadConfig({}, '/srv'));
  });
});
