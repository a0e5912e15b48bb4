/**
 * The transaction sync store contract (docs/behaviour.md#transaction-sync), on both storage
 * engines through the store code production uses: what a first sync keeps, how a page's
 * changes move the generation on by one with a compare-and-swap, a restart replacing the
 * kept state, keys kept apart, and the state gone with its association (or never written
 * when the association is gone first).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/adapters/store/database.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { SqlTransactionSyncStore } from '../../src/adapters/store/sql-transaction-sync-store.js';
import type { KeptTransaction } from '../../src/domain/transaction-sync.js';
import type { SyncStateKey } from '../../src/ports/transaction-sync-store.js';
import { BACKENDS, type OpenBackend } from '../support/backends.js';

const NOW = new Date('2026-11-20T10:00:00.000Z');
const NO_CHANGES = upserting();

function kept(id: string, digest: string, leavesWindowOn: string | null = '2027-01-10'): KeptTransaction {
  return { id, digest, leavesWindowOn };
}

function upserting(...upserts: KeptTransaction[]) {
  return { upserts, deletes: [] };
}

function sorted(map: ReadonlyMap<string, KeptTransaction>): KeptTransaction[] {
  return [...map.values()].sort((a, b) => a.id.localeCompare(b.id));
}

for (const backend of BACKENDS) {
  describe(`transaction sync store (${backend.name})`, { skip: backend.skip }, () => {
    let open: OpenBackend;
    let db: Database;
    let store: SqlTransactionSyncStore;
    before(async () => {
      open = await backend.open();
      db = open.database;
      await migrate(db);
      store = new SqlTransactionSyncStore(db);
    });
    after(() => open?.close());

    /** A registered association's account key (a new customer each time). */
    async function registered(accountId = 'A-1'): Promise<SyncStateKey> {
      const key = { institution: 'default', platform: 'sync-contract', customerId: randomUUID(), accountId };
      await db.query(
        `insert into associations (institution, platform, customer_id, customer_key, delegate_sealed, delegate_key_id, expires_at, created_at, updated_at)
         values ($1, $2, $3, 'C-1', 'sealed', 'k', $4, $4, $4)`,
        [key.institution, key.platform, key.customerId, NOW],
      );
      return key;
    }

    it('keeps nothing before a first sync; a first sync keeps its rows, generation 1 and the window digest', async () => {
      const key = await registered();
      assert.equal(await store.head(key), undefined);
      assert.equal((await store.kept(key)).size, 0);
      const rows = [kept('t-1', 'd1'), kept('p-2', 'd2', null)];
      assert.equal(await store.apply(key, 'restart', { upserts: rows, deletes: [] }, 'w1', NOW), 1);
      assert.deepEqual(await store.head(key), { generation: 1, windowDigest: 'w1' });
      assert.deepEqual(sorted(await store.kept(key)), [kept('p-2', 'd2', null), kept('t-1', 'd1')]);
    });

    it('a page from the kept generation inserts, replaces and deletes rows and moves the generation on by one', async () => {
      const key = await registered();
      await store.apply(key, 'restart', upserting(kept('a', 'd1'), kept('b', 'd2'), kept('c', 'd3')), null, NOW);
      assert.deepEqual(await store.head(key), { generation: 1, windowDigest: null });
      const changes = { upserts: [kept('b', 'd2-reversed'), kept('d', 'd4', null)], deletes: ['c'] };
      assert.equal(await store.apply(key, 1, changes, 'w2', NOW), 2);
      assert.deepEqual(await store.head(key), { generation: 2, windowDigest: 'w2' });
      assert.deepEqual(sorted(await store.kept(key)), [
        kept('a', 'd1'),
        kept('b', 'd2-reversed'),
        kept('d', 'd4', null),
      ]);
      // A page with nothing to write still moves the generation on (its cursor is the next one).
      assert.equal(await store.apply(key, 2, NO_CHANGES, 'w3', NOW), 3);
      assert.deepEqual(await store.head(key), { generation: 3, windowDigest: 'w3' });
    });

    it('a page from an older generation writes nothing: moved-on', async () => {
      const key = await registered();
      await store.apply(key, 'restart', upserting(kept('a', 'd1')), 'w1', NOW);
      await store.apply(key, 1, upserting(kept('b', 'd2')), 'w2', NOW);
      assert.equal(await store.apply(key, 1, { upserts: [kept('x', 'dx')], deletes: ['a'] }, 'w9', NOW), 'moved-on');
      assert.deepEqual(await store.head(key), { generation: 2, windowDigest: 'w2' });
      assert.deepEqual(sorted(await store.kept(key)), [kept('a', 'd1'), kept('b', 'd2')]);
      // A cursor's generation of a state never kept is moved-on too (the caller checks the head first).
      assert.equal(await store.apply(await registered(), 1, NO_CHANGES, null, NOW), 'moved-on');
    });

    it('of two pages from the same generation at once, exactly one applies', async () => {
      const key = await registered();
      await store.apply(key, 'restart', upserting(kept('a', 'd1')), null, NOW);
      const results = await Promise.all([
        store.apply(key, 1, upserting(kept('b', 'left')), null, NOW),
        store.apply(key, 1, upserting(kept('c', 'right')), null, NOW),
      ]);
      assert.deepEqual([...results].sort(), [2, 'moved-on']);
      assert.equal((await store.kept(key)).size, 2);
    });

    it('a restart replaces whatever is kept and goes on from the kept generation', async () => {
      const key = await registered();
      await store.apply(key, 'restart', upserting(kept('a', 'd1'), kept('b', 'd2')), 'w1', NOW);
      await store.apply(key, 1, NO_CHANGES, 'w2', NOW);
      assert.equal(await store.apply(key, 'restart', upserting(kept('c', 'd3')), null, NOW), 3);
      assert.deepEqual(await store.head(key), { generation: 3, windowDigest: null });
      assert.deepEqual(sorted(await store.kept(key)), [kept('c', 'd3')]);
    });

    it('keeps accounts, customers and platforms apart', async () => {
      const key = await registered('A-1');
      const otherAccount = { ...key, accountId: 'A-2' };
      const otherCustomer = await registered('A-1');
      await store.apply(key, 'restart', upserting(kept('a', 'd1')), 'w1', NOW);
      await store.apply(otherAccount, 'restart', upserting(kept('a', 'other')), 'w2', NOW);
      assert.deepEqual(sorted(await store.kept(key)), [kept('a', 'd1')]);
      assert.deepEqual(sorted(await store.kept(otherAccount)), [kept('a', 'other')]);
      assert.equal(await store.head(otherCustomer), undefined);
      assert.equal(await store.head({ ...key, platform: 'another-platform' }), undefined);
      // Another account's restart leaves this one's rows.
      await store.apply(otherAccount, 'restart', NO_CHANGES, null, NOW);
      assert.deepEqual(sorted(await store.kept(key)), [kept('a', 'd1')]);
    });

    it('deleting the association deletes its state; without an association nothing is written: unregistered', async () => {
      const key = await registered();
      await store.apply(key, 'restart', upserting(kept('a', 'd1')), 'w1', NOW);
      await db.query('delete from associations where institution = $1 and platform = $2 and customer_id = $3', [
        key.institution,
        key.platform,
        key.customerId,
      ]);
      assert.equal(await store.head(key), undefined);
      assert.equal((await store.kept(key)).size, 0);
      const items = await db.query<{ n: number }>(
        'select count(*)::int as n from transaction_sync_items where customer_id = $1',
        [key.customerId],
      );
      assert.equal(Number(items[0]!.n), 0);
      for (const from of ['restart', 1] as const)
        assert.equal(await store.apply(key, from, upserting(kept('b', 'd2')), 'w2', NOW), 'unregistered');
      assert.equal(await store.head(key), undefined);
    });
  });
}
