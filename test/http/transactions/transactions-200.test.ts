/**
 * `GET /core/transactions` → 200 (docs/behaviour.md#transactions), on both storage engines:
 * every record with exactly its 12 fields, newest first (pending first, then booking day and
 * id descending), the 90-day default window, the filters; paging with `nextCursor` neither
 * repeats nor skips a transaction when new ones arrive between pages (the simulator's day
 * moves on: new pending ones, pending ones booked under new ids); a core rejecting the
 * session between two pages is renewed unseen. The clock only moves forward, in the last test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compareNewestFirst, type TransactionRecord } from '../../../src/domain/transaction.js';
import { addDays } from '../../../src/domain/transaction-query.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { assertSuccess } from '../gateway/gateway-requests.js';
import {
  allPages,
  CHECKING,
  freshToken,
  getTransactions,
  registeredCustomer,
  SAVINGS,
  type Customer,
  type Page,
} from './transaction-requests.js';

const FIELDS = [
  'accountId',
  'amount',
  'bookingDate',
  'creditDebit',
  'currency',
  'description',
  'id',
  'reversed',
  'runningBalance',
  'status',
  'type',
  'valueDate',
];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

for (const backend of BACKENDS) {
  describe(`GET /core/transactions → 200 (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let ada: Customer;
    before(async () => {
      h = await createHarness(backend);
      ada = await registeredCustomer(h, 'tx-200');
    });
    after(() => h?.close());

    it('answers the last 90 days newest first, each record with exactly its 12 fields', async () => {
      const all = await allPages(h, ada, { accountId: CHECKING, limit: 500 });
      assert.ok(all.length >= 400, `at least 400 transactions in 90 days, got ${all.length}`);
      assert.equal(new Set(all.map((record) => record.id)).size, all.length, 'no id twice');
      for (let index = 1; index < all.length; index += 1)
        assert.ok(compareNewestFirst(all[index - 1]!, all[index]!) < 0, `order at ${index}`);
      const today = h.clock.now().toISOString().slice(0, 10);
      for (const record of all) {
        assert.deepEqual(Object.keys(record).sort(), FIELDS, record.id);
        assert.equal(record.accountId, CHECKING);
        assert.match(record.valueDate, DAY);
        assert.ok(record.amount > 0);
        assert.ok(['C', 'D'].includes(record.creditDebit));
        assert.equal(record.status === 'pending', record.bookingDate === null, record.id);
        if (record.bookingDate !== null) {
          assert.ok(record.bookingDate <= today && record.bookingDate >= '2025-12-01', record.bookingDate);
        }
      }
      assert.ok(
        all.some((record) => record.status === 'pending'),
        'some pending',
      );
      assert.ok(
        all.some((record) => record.reversed),
        'some reversed',
      );
      assert.equal(
        all.findIndex((record) => record.status === 'booked'),
        all.filter((r) => r.status === 'pending').length,
      );
    });

    it('carries the running balance after each booked transaction, none while pending', async () => {
      const all = await allPages(h, ada, { accountId: CHECKING, limit: 500 });
      const cents = (value: number) => Math.round(value * 100);
      const signed = (record: TransactionRecord) => (record.creditDebit === 'C' ? 1 : -1) * cents(record.amount);
      for (const record of all)
        if (record.status === 'pending') assert.equal(record.runningBalance, null, record.id);
        else assert.equal(typeof record.runningBalance, 'number', record.id);
      // Oldest first: each balance is the one before it moved by the transaction, and by the
      // reversals shown on its day (each undoing a transaction booked three days before).
      const booked = all.filter((record) => record.status === 'booked').reverse();
      const reversedOn = (day: string) =>
        booked
          .filter((record) => record.reversed && addDays(record.bookingDate!, 3) === day)
          .reduce((sum, record) => sum - signed(record), 0);
      const firstDay = booked[0]!.bookingDate!;
      let checked = 0;
      for (let index = 1; index < booked.length; index += 1) {
        const [older, newer] = [booked[index - 1]!, booked[index]!];
        // Reversals of transactions before the listed ones are not known here.
        if (older.bookingDate! < addDays(firstDay, 3)) continue;
        let expected = cents(older.runningBalance!) + signed(newer);
        for (let day = addDays(older.bookingDate!, 1); day <= newer.bookingDate!; day = addDays(day, 1))
          expected += reversedOn(day);
        assert.equal(cents(newer.runningBalance!), expected, `${older.id} → ${newer.id}`);
        checked += 1;
      }
      assert.ok(checked > 300, `${checked} balances checked`);
      assert.ok(booked.some((record) => record.reversed && record.bookingDate! >= addDays(firstDay, 3)));
      // The same balances on another read: fixed once booked.
      const again = await allPages(h, ada, { accountId: CHECKING, limit: 500 });
      assert.deepEqual(
        again.map((record) => record.runningBalance),
        all.map((record) => record.runningBalance),
      );
    });

    it('pages by 100 by default and follows the filters: status and days', async () => {
      const first = assertSuccess<Page>(await getTransactions(h, ada, { accountId: CHECKING }));
      assert.equal(first.transactions.length, 100);
      assert.equal(typeof first.nextCursor, 'string');
      const booked = await allPages(h, ada, {
        accountId: CHECKING,
        status: 'booked',
        fromDate: '2026-02-01',
        toDate: '2026-02-10',
        limit: 7,
      });
      assert.ok(booked.length > 20);
      for (const record of booked) {
        assert.equal(record.status, 'booked');
        assert.ok(record.bookingDate! >= '2026-02-01' && record.bookingDate! <= '2026-02-10', record.bookingDate!);
      }
      const pending = assertSuccess<Page>(await getTransactions(h, ada, { accountId: CHECKING, status: 'pending' }));
      assert.ok(pending.transactions.length > 0 && pending.transactions.every((record) => record.status === 'pending'));
      assert.equal(pending.nextCursor, null);
      const savings = await allPages(h, ada, { accountId: SAVINGS, limit: 500 });
      assert.ok(savings.every((record) => record.accountId === SAVINGS));
    });

    it('renews a session the core rejects between two pages, unseen by the platform', async () => {
      const simulator = h.services.simulator!;
      const first = assertSuccess<Page>(await getTransactions(h, ada, { accountId: CHECKING, limit: 50 }));
      const started = simulator.stats().sessionsStarted;
      simulator.expireAll();
      const second = assertSuccess<Page>(
        await getTransactions(h, ada, { accountId: CHECKING, limit: 50, cursor: first.nextCursor! }),
      );
      assert.equal(second.transactions.length, 50);
      assert.ok(compareNewestFirst(first.transactions.at(-1)!, second.transactions[0]!) < 0);
      assert.equal(simulator.stats().sessionsStarted, started + 1, 'one new core session');
    });
    it('neither repeats nor skips a transaction when new ones arrive between pages', async () => {
      const before = await allPages(h, ada, { accountId: CHECKING, limit: 500 });
      const first = assertSuccess<Page>(await getTransactions(h, ada, { accountId: CHECKING, limit: 60 }));
      // A day later: new pending transactions, yesterday's pending ones booked under new ids.
      h.clock.advance(86_400);
      await freshToken(h, ada);
      {
        const rest: string[] = [];
        let cursor = first.nextCursor;
        while (cursor !== null) {
          const page = assertSuccess<Page>(await getTransactions(h, ada, { accountId: CHECKING, limit: 60, cursor }));
          rest.push(...page.transactions.map((record) => record.id));
          cursor = page.nextCursor;
        }
        const seen = [...first.transactions.map((record) => record.id), ...rest];
        assert.equal(new Set(seen).size, seen.length, 'no transaction twice');
        const last = first.transactions.at(-1)!;
        const expected = before.filter((record) => compareNewestFirst(record, last) > 0).map((record) => record.id);
        assert.ok(expected.length > 300);
        assert.deepEqual(rest, expected, 'every transaction after the first page, once, in order');
      }
    });
  });
}
