/**
 * The embedded data dir is its owner's alone, like PostgreSQL's (docs/operations.md,
 * "Data dir"): opening it closes what an earlier start or a hand copy left open
 * (directories 0700, files 0600), and what PGlite creates afterwards is 0600 too.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/adapters/store/open-database.js';

/** Every entry under `dir` (itself included) whose mode gives other users anything, with its mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) found.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

describe('embedded data dir modes', { timeout: 60_000 }, () => {
  it('an existing data dir left 0755/0644 is closed to others at opening, and new files are 0600', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'coregate-modes-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    const template = process.env['COREGATE_TEST_PGLITE_TEMPLATE_DIR'];
    if (template) cpSync(template, join(dataDir, 'pg'), { recursive: true });
    writeFileSync(join(dataDir, 'notes.txt'), 'x');
    symlinkSync('/etc/hostname', join(dataDir, 'link'));
    // As an older version, a restore or a hand copy may leave it.
    const open = (path: string) => {
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) return;
      chmodSync(path, stats.isDirectory() ? 0o755 : 0o644);
      if (stats.isDirectory()) for (const name of readdirSync(path)) open(join(path, name));
    };
    open(dataDir);
    assert.notDeepEqual(openToOthers(dataDir), []);

    const opened = await openDatabase(loadConfig({ COREGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
      role: 'command',
    });
    try {
      assert.ok((opened.tightened ?? 0) > 0);
      assert.deepEqual(openToOthers(dataDir), []);
      assert.equal(lstatSync(dataDir).mode & 0o777, 0o700);
      assert.equal(lstatSync(join(dataDir, 'notes.txt')).mode & 0o777, 0o600);
      // Files PGlite makes from now on.
      await opened.database.query('create table if not exists modes_probe (n int)');
      await opened.database.query('insert into modes_probe select generate_series(1, 1000)');
      await opened.database.query('checkpoint');
    } finally {
      await opened.database.close();
      opened.release();
    }
    assert.deepEqual(openToOthers(dataDir), []);
  });
});
