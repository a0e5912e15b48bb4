/**
 * The pure rules of transactions (docs/behaviour.md#transactions): the filters' defaults and
 * bounds, the listing order, the sync diff and its pages, and how protocol answers map to the
 * port's errors (a 404 to the path is a core without the call).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { errorForAnswer } from '../../src/adapters/core/protocol.js';
import { readTransactionPage } from '../../src/adapters/core/transaction-record.js';
import { compareNewestFirst, type TransactionRecord } from '../../src/domain/transaction.js';
import { addDays, isDay, resolveFilters } from '../../src/domain/transaction-query.js';
import { syncPage, type KeptTransaction } from '../../src/domain/transaction-sync.js';
import {
  AccountNotFound,
  CoreProtocolError,
  SessionRejected,
  TransactionsNotSupported,
} from '../../src/ports/core-connector.js';

function record(id: string, bookingDate: string | null, fields: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    id,
    accountId: 'A-1',
    status: bookingDate === null ? 'pending' : 'booked',
    bookingDate,
    valueDate: bookingDate ?? '2026-03-01',
    amount: 12.5,
    creditDebit: 'D',
    currency: 'USD',
    description: 'Corner Coffee',
    type: 'payment',
    runningBalance: null,
    reversed: false,
    ...fields,
  };
}

describe('transaction filters', () => {
  it('defaults to the 90 days up to today, and bounds the window to 731 days', () => {
    assert.deepEqual(resolveFilters({}, '2026-03-01'), {
      filters: { fromDate: '2025-12-01', toDate: '2026-03-01', status: 'both' },
    });
    assert.deepEqual(resolveFilters({ toDate: '2024-03-01' }, '2026-03-01'), {
      filters: { fromDate: '2023-12-02', toDate: '2024-03-01', status: 'both' },
    });
    assert.ok('filters' in resolveFilters({ fromDate: '2024-02-29', toDate: '2026-02-28' }, '2026-03-01'));
    assert.deepEqual(resolveFilters({ fromDate: '2024-02-27', toDate: '2026-02-28' }, '2026-03-01'), {
      problems: [{ path: '/fromDate', message: 'must be at most 731 days before toDate' }],
    });
    assert.deepEqual(resolveFilters({ fromDate: '2026-03-02' }, '2026-03-01'), {
      problems: [{ path: '/fromDate', message: 'must not be after toDate' }],
    });
    assert.deepEqual(resolveFilters({ fromDate: '2026-02-29', toDate: '0000-01-01' }, '2026-03-01'), {
      problems: [
        { path: '/fromDate', message: 'must be a real calendar day, YYYY-MM-DD' },
        { path: '/toDate', message: 'must be a real calendar day, YYYY-MM-DD' },
      ],
    });
  });

  it('either resolves to a window of 0 to 731 days or names fromDate or toDate, for any days', () => {
    const day = fc
      .date({ min: new Date('0001-01-01'), max: new Date('9000-12-31'), noInvalidDate: true })
      .map((date) => date.toISOString().slice(0, 10));
    fc.assert(
      fc.property(
        fc.option(fc.oneof(day, fc.string()), { nil: undefined }),
        fc.option(fc.oneof(day, fc.string()), { nil: undefined }),
        (fromDate, toDate) => {
          const resolved = resolveFilters({ fromDate, toDate }, '2026-03-01');
          if ('problems' in resolved) {
            assert.ok(resolved.problems.length > 0);
            for (const problem of resolved.problems) assert.ok(['/fromDate', '/toDate'].includes(problem.path));
            return;
          }
          const { filters } = resolved;
          assert.ok(filters.fromDate <= filters.toDate);
          assert.ok(addDays(filters.fromDate, 731) >= filters.toDate);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes a day exactly when it is YYYY-MM-DD in ASCII digits and a real calendar day', () => {
    for (const day of ['2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31', '2026-12-31'])
      assert.equal(isDay(day), true, day);
    for (const day of [
      '2026-02-29',
      '1900-02-29',
      '0000-01-01',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-04-31',
      '2026-1-01',
      '2026-01-01\n',
      ' 2026-01-01',
      '2026/01/01',
      '2026-0a-01',
      // The characters on either side of the digits: '/' and ':'.
      '2026-0:-01',
      '2026-01-/1',
      '20:6-01-01',
      '/026-01-01',
      '+2026-01-1',
      '２０２６-01-01',
      '',
    ])
      assert.equal(isDay(day), false, JSON.stringify(day));
    // The reference: the pattern, then Date's own reading of the same parts, for years 1 to 9999.
    const reference = (text: string): boolean => {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
      if (!match || Number(match[1]) < 1) return false;
      const date = new Date(0);
      date.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
      return date.toISOString().slice(-24, -14) === text;
    };
    const twoDigits = fc.integer({ min: 0, max: 99 }).map((n) => String(n).padStart(2, '0'));
    const shaped = fc
      .tuple(fc.integer({ min: 0, max: 9999 }), twoDigits, twoDigits)
      .map(([year, month, date]) => `${String(year).padStart(4, '0')}-${month}-${date}`);
    fc.assert(
      fc.property(fc.oneof(shaped, fc.string({ minLength: 10, maxLength: 10 })), (text) => {
        assert.equal(isDay(text), reference(text), JSON.stringify(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('listing order', () => {
  it('puts pending first, then booking day and id descending', () => {
    const sorted = [
      record('b', '2026-01-01'),
      record('a', null),
      record('c', '2026-01-01'),
      record('z', '2026-02-01'),
      record('b', null),
    ].sort(compareNewestFirst);
    assert.deepEqual(
      sorted.map((item) => `${item.bookingDate ?? 'pending'}/${item.id}`),
      ['pending/b', 'pending/a', '2026-02-01/z', '2026-01-01/c', '2026-01-01/b'],
    );
  });
});

describe('sync pages', () => {
  const same = (entry: { digest: string }, kept: string) => entry.digest === kept;
  const kept = (id: string, digest: string, leavesWindowOn: string | null): [string, KeptTransaction] => [
    id,
    { id, digest, leavesWindowOn },
  ];

  it('reports removals, modifications and additions in that order, a page at a time, and lets aged ones go silently', () => {
    const state = new Map([
      kept('pending-1', 'd1', null),
      kept('old', 'd2', '2026-02-27'),
      kept('booked-1', 'd3', '2026-05-01'),
      kept('gone', 'd4', '2026-05-02'),
    ]);
    const current = [
      { record: record('booked-1', '2026-01-31', { reversed: true }), digest: 'd3-reversed' },
      { record: record('new-2', '2026-02-28'), digest: 'd5' },
      { record: record('new-1', '2026-02-27'), digest: 'd6' },
    ];
    const first = syncPage(state, current, 3, '2026-03-01', same);
    assert.deepEqual(first.removed, ['gone', 'pending-1']);
    assert.deepEqual(
      first.modified.map((item) => item.id),
      ['booked-1'],
    );
    assert.deepEqual(first.added, []);
    assert.equal(first.hasMore, true);
    assert.deepEqual(first.deletes.sort(), ['gone', 'old', 'pending-1']);
    assert.deepEqual(first.upserts, [{ id: 'booked-1', digest: 'd3-reversed', leavesWindowOn: '2026-05-01' }]);
    const after = new Map([kept('booked-1', 'd3-reversed', '2026-05-01')]);
    const second = syncPage(after, current, 3, '2026-03-01', same);
    assert.deepEqual(
      second.added.map((item) => item.id),
      ['new-2', 'new-1'],
    );
    assert.equal(second.hasMore, false);
  });
});

describe('protocol answers to transactions', () => {
  it('maps 404 account_not_found, other 404s, and a rejected session', () => {
    assert.ok(errorForAnswer('listTransactions', 404, 'account_not_found') instanceof AccountNotFound);
    assert.ok(errorForAnswer('listTransactions', 404, 'not_found') instanceof TransactionsNotSupported);
    assert.ok(errorForAnswer('listTransactions', 404, undefined) instanceof TransactionsNotSupported);
    assert.ok(errorForAnswer('listTransactions', 401, 'session_invalid') instanceof SessionRejected);
  });

  it('reads a page strictly, an unknown type as other, never naming a value', () => {
    const wire = { ...record('t-1', '2026-02-01'), type: 'CARD_PURCHASE', extra: 'dropped' };
    const page = readTransactionPage({ transactions: [wire], nextCursor: null });
    assert.deepEqual(page.transactions, [{ ...record('t-1', '2026-02-01'), type: 'other' }]);
    assert.throws(
      () => readTransactionPage({ transactions: [{ ...wire, amount: -3 }], nextCursor: null }),
      (error: unknown) =>
        error instanceof CoreProtocolError &&
        /transactions\[0\]\.amount/.test(error.message) &&
        !/-3/.test(error.message),
    );
    assert.throws(
      () => readTransactionPage({ transactions: [{ ...wire, bookingDate: null }], nextCursor: null }),
      (error: unknown) => error instanceof CoreProtocolError && /bookingDate/.test(error.message),
    );
    assert.throws(() => readTransactionPage({ transactions: [], nextCursor: 5 }), CoreProtocolError);
    // A core's running balance is passed on as it is, a number or null.
    const balanced = readTransactionPage({ transactions: [{ ...wire, runningBalance: -12.5 }], nextCursor: null });
    assert.equal(balanced.transactions[0]!.runningBalance, -12.5);
    assert.throws(
      () => readTransactionPage({ transactions: [{ ...wire, runningBalance: '12.50' }], nextCursor: null }),
      (error: unknown) => error instanceof CoreProtocolError && /runningBalance/.test(error.message),
    );
  });
});
