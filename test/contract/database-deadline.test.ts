/**
 * The database under one request's deadline (docs/operations.md#one-database-deadline-per-request),
 * on both engines: a statement waits only what the deadline has left, a later one of the same
 * request none at all once it is used up, and a transaction its caller gave up on writes nothing.
 * On PostgreSQL a statement whose caller gave up waiting for a pooled connection is never sent.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/adapters/store/database.js';
import { PostgresDatabase } from '../../src/adapters/store/postgres-database.js';
import { DatabaseUnavailable } from '../../src/ports/database-unavailable.js';
import { DatabaseDeadline } from '../../src/ports/database-deadline.js';
import { BACKENDS, type OpenBackend } from '../support/backends.js';
import { createFreshDatabase, postgresSkip, type FreshDatabase } from '../support/postgres.js';

const BUDGET_MS = 300;
/** Scheduling slack on a shared machine. */
const SLACK_MS = 400;

function isUnavailable(error: unknown): boolean {
  return error instanceof DatabaseUnavailable && error.retryAfterSeconds === 5;
}

/**
 * Holds `table` locked in a transaction until `release()`: every statement on it waits.
 * `locked` resolves once the lock is taken.
 */
function holdLock(
  database: Database,
  table: string,
): { release: () => void; locked: Promise<void>; done: Promise<void> } {
  let release!: () => void;
  let locked!: () => void;
  const held = new Promise<void>((resolve) => (locked = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const done = database.transaction(async (tx) => {
    await tx.query(`lock table ${table} in access exclusive mode`);
    locked();
    await released;
  });
  return { release, locked: held, done: held.then(() => done) };
}

async function rows(database: Database, table: string): Promise<string[]> {
  return (await database.query<{ k: string }>(`select k from ${table} order by k`)).map((row) => row.k);
}

for (const backend of BACKENDS) {
  describe(`one deadline for a request's database waits (${backend.name})`, { skip: backend.skip }, () => {
    let opened: OpenBackend;
    let database: Database;

    before(async () => {
      opened = await backend.open();
      database = opened.database;
      await database.query('create table deadline_probe (k text primary key)');
    });
    after(async () => {
      await opened?.close();
    });

    it('bounds a wait by what the deadline leaves, and a later one of the request fails at once', async () => {
      const hold = holdLock(database, 'deadline_probe');
      // The lock is taken before the request starts.
      await hold.locked;
      const deadline = new DatabaseDeadline(BUDGET_MS);
      let started = performance.now();
      await assert.rejects(database.query('select k from deadline_probe', [], deadline), isUnavailable);
      const first = performance.now() - started;
      assert.ok(first >= BUDGET_MS - 20 && first < BUDGET_MS + SLACK_MS, `first wait ${Math.round(first)} ms`);
      started = performance.now();
      await assert.rejects(database.query('select 1', [], deadline), isUnavailable);
      // A second wait would last until the lock is released: nothing close to the budget.
      assert.ok(performance.now() - started < BUDGET_MS, 'no second wait');
      hold.release();
      await hold.done;
    });

    it('writes nothing for a transaction whose caller gave up', async () => {
      const hold = holdLock(database, 'deadline_probe');
      await hold.locked;
      const started = performance.now();
      await assert.rejects(
        database.transaction(
          (tx) => tx.query("insert into deadline_probe (k) values ('abandoned')"),
          new DatabaseDeadline(BUDGET_MS),
        ),
        isUnavailable,
      );
      assert.ok(performance.now() - started < BUDGET_MS + SLACK_MS, 'bounded by the deadline');
      hold.release();
      await hold.done;
      await sleep(200);
      assert.deepEqual(await rows(database, 'deadline_probe'), []);
      // The database serves the next request as usual.
      await database.transaction(
        (tx) => tx.query("insert into deadline_probe (k) values ('later')"),
        new DatabaseDeadline(BUDGET_MS),
      );
      assert.deepEqual(await rows(database, 'deadline_probe'), ['later']);
      await database.query('delete from deadline_probe');
    });
  });
}

describe(
  'PostgreSQL: a statement that gave up waiting for a connection is never sent (postgres)',
  { skip: postgresSkip },
  () => {
    let fresh: FreshDatabase;
    let database: PostgresDatabase;

    before(async () => {
      fresh = await createFreshDatabase();
      database = new PostgresDatabase({ connectionString: fresh.url, poolMax: 1 });
      await database.query('create table deadline_probe (k text primary key)');
    });
    after(async () => {
      await database?.close();
      await fresh?.drop();
    });

    it('leaves the row unwritten after the one pooled connection frees up', async () => {
      let release!: () => void;
      let took!: () => void;
      const taken = new Promise<void>((resolve) => (took = resolve));
      const holding = database.transaction(() => {
        took();
        return new Promise<void>((resolve) => (release = resolve));
      });
      // The one pooled connection is held before the statement asks for it.
      await taken;
      await assert.rejects(
        database.query("insert into deadline_probe (k) values ('abandoned')", [], new DatabaseDeadline(BUDGET_MS)),
        isUnavailable,
      );
      release();
      await holding;
      await sleep(200);
      assert.deepEqual(await rows(database, 'deadline_probe'), []);
    });
  },
);
