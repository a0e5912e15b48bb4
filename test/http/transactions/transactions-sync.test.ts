/**
 * `GET /core/transactions/sync` (docs/behaviour.md#transaction-sync), on both storage engines:
 * the first sync adds the whole 90-day window (page by page while `hasMore`); an unchanged
 * account answers nothing and keeps its cursor's generation; a day later the pending
 * transactions booked under new ids are `removed` + `added`; a reversal is `modified`; an
 * answer's cursor used twice, or one made before a sync started again, is `invalid_cursor`;
 * coregate keeps ids and digests only, and deregistration deletes them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { assertBadRequest, assertSuccess } from '../gateway/gateway-requests.js';
import {
  allPages,
  CHECKING,
  freshToken,
  registeredCustomer,
  syncAll,
  syncTransactions,
  type Customer,
  type SyncData,
} from './transaction-requests.js';

for (const backend of BACKENDS) {
  describe(`GET /core/transactions/sync (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let ada: Customer;
    before(async () => {
      h = await createHarness(backend);
      ada = await registeredCustomer(h, 'tx-sync');
    });
    after(() => h?.close());

    async function keptRows(customerId: string): Promise<number> {
      const rows = await h.services.database.query<{ n: number }>(
        'select count(*)::int as n from transaction_sync_items where customer_id = $1',
        [customerId],
      );
      return Number(rows[0]!.n);
    }

    it('adds the whole window page by page, answers nothing for an unchanged account, refuses a used cursor', async () => {
      const window = await allPages(h, ada, { accountId: CHECKING, limit: 500 });
      const first = await syncAll(h, ada, CHECKING, undefined, 100);
      assert.ok(first.pages >= 5, `${first.pages} pages of 100`);
      assert.deepEqual(
        first.added.map((record) => record.id).sort(),
        window.map((record) => record.id).sort(),
        'every transaction of the window added once',
      );
      assert.deepEqual([first.modified.length, first.removed.length], [0, 0]);
      assert.equal(await keptRows(ada.customerId), window.length);

      const again = assertSuccess<SyncData>(
        await syncTransactions(h, ada, { accountId: CHECKING, cursor: first.cursor }),
      );
      assert.deepEqual([again.added, again.modified, again.removed, again.hasMore], [[], [], [], false]);
      // Unchanged: the same generation, so either cursor goes on.
      assertSuccess(await syncTransactions(h, ada, { accountId: CHECKING, cursor: again.nextCursor }));

      // A cursor of a page already followed is older than the kept state.
      const restart = assertSuccess<SyncData>(await syncTransactions(h, ada, { accountId: CHECKING, count: 10 }));
      const next = assertSuccess<SyncData>(
        await syncTransactions(h, ada, { accountId: CHECKING, cursor: restart.nextCursor, count: 10 }),
      );
      const reused = await syncTransactions(h, ada, { accountId: CHECKING, cursor: restart.nextCursor });
      assert.equal(assertBadRequest(reused, ['/cursor']).data.reason, 'invalid_cursor');
      // The sync started again above: the cursor of the first full sync is too old as well.
      assert.equal(
        assertBadRequest(await syncTransactions(h, ada, { accountId: CHECKING, cursor: first.cursor }), ['/cursor'])
          .data.reason,
        'invalid_cursor',
      );
      assert.ok(next.hasMore);
    });

    it('a day on: pending ones booked are removed and added; later, a reversal is modified', async () => {
      const start = await syncAll(h, ada, CHECKING, undefined, 500);
      const pendingBefore = start.added.filter((record) => record.status === 'pending').map((record) => record.id);
      assert.ok(pendingBefore.length > 0);

      h.clock.advance(86_400);
      await freshToken(h, ada);
      const day = await syncAll(h, ada, CHECKING, start.cursor, 500);
      const bookedNow = day.added.filter((record) => record.status === 'booked');
      assert.ok(bookedNow.length > 0, 'booked ones added');
      assert.ok(
        pendingBefore.some((id) => day.removed.includes(id)),
        'a pending transaction of two days ago is removed',
      );
      for (const id of day.removed) assert.ok(pendingBefore.includes(id) || id.startsWith('txn-'), id);
      const replaced = day.removed.find((id) => id.startsWith('pnd-'))!;
      assert.ok(
        bookedNow.some((record) => record.id === replaced.replace(/^pnd-/, 'txn-')),
        'its booked one is added',
      );

      // Day by day until a reversal shows (the simulator reverses about one in twenty, three days after booking).
      let cursor = day.cursor;
      let modified: typeof day.modified = [];
      for (let days = 0; days < 40 && modified.length === 0; days += 1) {
        h.clock.advance(86_400);
        await freshToken(h, ada);
        const next = await syncAll(h, ada, CHECKING, cursor, 500);
        cursor = next.cursor;
        modified = next.modified;
        for (const record of next.modified) assert.ok(!next.removed.includes(record.id));
      }
      assert.ok(modified.length > 0, 'a reversal within 40 days');
      for (const record of modified) assert.equal(record.reversed, true, `${record.id} modified as reversed`);
    });

    it('keeps only ids, digests, a window day and a window digest; deregistration deletes them', async () => {
      const columns = await h.services.database.query<{ column_name: string }>(
        `select column_name from information_schema.columns where table_name in ('transaction_sync_items', 'transaction_sync_states') order by column_name`,
      );
      assert.deepEqual([...new Set(columns.map((row) => row.column_name))].sort(), [
        'account_id',
        'customer_id',
        'digest',
        'generation',
        'institution',
        'leaves_window_on',
        'platform',
        'transaction_id',
        'updated_at',
        'window_digest',
      ]);
      const digests = await h.services.database.query<{ digest: string }>(
        'select digest from transaction_sync_items where customer_id = $1 limit 5',
        [ada.customerId],
      );
      for (const { digest } of digests) assert.match(digest, /^[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/);
      assert.ok((await keptRows(ada.customerId)) > 0);
      const gone = await h.app.inject({
        method: 'DELETE',
        url: `/core/sessions?customerId=${ada.customerId}`,
        headers: { authorization: `Bearer ${ada.token}` },
      });
      assertSuccess(gone);
      assert.equal(await keptRows(ada.customerId), 0);
      const states = await h.services.database.query<{ n: number }>(
        'select count(*)::int as n from transaction_sync_states where customer_id = $1',
        [ada.customerId],
      );
      assert.equal(Number(states[0]!.n), 0);
    });
  });
}
