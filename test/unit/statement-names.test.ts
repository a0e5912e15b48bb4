/** Which statements coregate prepares by name on PostgreSQL (adapters/store/postgres-database.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatementNames } from '../../src/adapters/store/postgres-database.js';

describe('StatementNames', () => {
  it('gives one text one name, the same in every process (a digest of the text)', () => {
    const text = 'select 1 from clients where id = $1';
    const name = new StatementNames().of(text);
    assert.match(name ?? '', /^cg_[A-Za-z0-9_-]{22}$/);
    assert.equal(new StatementNames().of(text), name);
    assert.notEqual(new StatementNames().of('select 2'), name);
  });

  it('names queries and writes, never schema changes (they run once)', () => {
    const names = new StatementNames();
    for (const text of [
      'select 1',
      '  insert into t values ($1)',
      'UPDATE t set a = 1',
      'delete from t',
      'with x as (select 1) select * from x',
    ]) {
      assert.ok(names.of(text), text);
    }
    for (const text of ['create table t (a int)', 'alter table t add column b int', 'begin', 'selection']) {
      assert.equal(names.of(text), undefined, text);
    }
  });

  it('names at most the first N distinct texts, so each connection keeps a bounded set prepared', () => {
    const names = new StatementNames(3);
    const first = ['select 1', 'select 2', 'select 3'].map((text) => names.of(text));
    assert.ok(first.every(Boolean));
    assert.equal(names.of('select 4'), undefined);
    assert.deepEqual(
      ['select 1', 'select 2', 'select 3'].map((text) => names.of(text)),
      first,
      'the named ones keep their names',
    );
  });
});
