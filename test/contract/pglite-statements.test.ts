/**
 * The embedded database's named statements (src/adapters/store/pglite-statements.ts) and its
 * turns at the single backend (pglite-database.ts): rows read exactly as PGlite's own query()
 * reads them, a statement never runs inside another caller's transaction, a statement whose
 * caller stopped waiting never runs, and a table changed under a statement is read as it is now.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { PgliteDatabase } from '../../src/adapters/store/pglite-database.js';
import { PgliteStatements } from '../../src/adapters/store/pglite-statements.js';
import { DatabaseUnavailable } from '../../src/ports/database-unavailable.js';
import { DatabaseDeadline } from '../../src/ports/database-deadline.js';

/** Resolves once `hold.release()` is called: a transaction held open by the test, not by time. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('embedded database: named statements read what PGlite reads', () => {
  let db: PGlite;
  let statements: PgliteStatements;

  before(async () => {
    db = await PGlite.create();
    statements = new PgliteStatements(db);
    await db.exec(`create table kinds (
      id int primary key, t text, n bigint, f double precision, b boolean, at timestamptz,
      j jsonb, bytes bytea, list text[])`);
  });
  after(async () => {
    await db.close();
  });

  it('gives the same rows as PGlite.query() for the same statement and parameters', async () => {
    const row = fc.record({
      t: fc.option(fc.string({ maxLength: 30, unit: 'binary' }).map((s) => s.replaceAll('\u0000', ''))),
      n: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
      f: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
      b: fc.option(fc.boolean()),
      at: fc.option(fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })),
      j: fc.option(fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })))),
      bytes: fc.option(fc.uint8Array({ maxLength: 16 })),
      list: fc.option(
        fc.array(
          fc.string({ maxLength: 5 }).filter((s) => !s.includes('\u0000')),
          { maxLength: 4 },
        ),
      ),
    });
    let id = 0;
    await fc.assert(
      fc.asyncProperty(row, async (value) => {
        id += 1;
        const params = [id, value.t, value.n, value.f, value.b, value.at, value.j, value.bytes, value.list];
        const insert = 'insert into kinds values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *';
        const ours = await statements.run(insert, params);
        const select = 'select * from kinds where id = $1';
        assert.deepEqual(await statements.run(select, [id]), ours);
        assert.deepEqual((await db.query(select, [id])).rows, ours);
      }),
      { numRuns: 150 },
    );
  });

  it('reads a table as it is now after its columns changed under a named statement', async () => {
    await db.exec('create table changing (k text)');
    await statements.run('insert into changing values ($1)', ['one']);
    assert.deepEqual(await statements.run('select * from changing', []), [{ k: 'one' }]);
    await db.exec('alter table changing add column extra int default 7');
    assert.deepEqual(await statements.run('select * from changing', []), [{ k: 'one', extra: 7 }]);
  });

  it('refuses a statement that does not parse, and serves the next one', async () => {
    await assert.rejects(statements.run('select from from', []), /syntax error/);
    assert.deepEqual(await statements.run('select 1 as one', []), [{ one: 1 }]);
  });
});

describe('embedded database: one turn at the backend at a time', () => {
  let database: PgliteDatabase;

  before(async () => {
    database = await PgliteDatabase.open(undefined, { timeoutMs: 2000 });
    await database.query('create table turns (k text primary key)');
  });
  after(async () => {
    await database.close();
  });

  it("never runs a statement inside another caller's transaction", async () => {
    const inside = gate();
    const finish = gate();
    const rolledBack = database.transaction(async (tx) => {
      await tx.query("insert into turns values ('in the transaction')");
      inside.open();
      await finish.opened;
      throw new Error('rolled back on purpose');
    });
    await inside.opened;
    // Sent while the transaction is open: it must wait for its end, not join it.
    const outside = database.query("insert into turns values ('outside')");
    finish.open();
    await assert.rejects(rolledBack, /rolled back on purpose/);
    await outside;
    assert.deepEqual(await database.query('select k from turns order by k'), [{ k: 'outside' }]);
    await database.query('delete from turns');
  });

  it('never runs a statement whose caller stopped waiting for its turn', async () => {
    const inside = gate();
    const finish = gate();
    const holding = database.transaction(async () => {
      inside.open();
      await finish.opened;
    });
    await inside.opened;
    try {
      await assert.rejects(
        database.query("insert into turns values ('abandoned')", [], new DatabaseDeadline(50)),
        DatabaseUnavailable,
      );
    } finally {
      finish.open();
      await holding;
    }
    // The next statement takes the turn the abandoned one would have had, after it.
    await database.query("insert into turns values ('next')");
    assert.deepEqual(await database.query('select k from turns order by k'), [{ k: 'next' }]);
    await database.query('delete from turns');
  });
});
