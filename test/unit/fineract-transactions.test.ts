/**
 * The Fineract connector's transactions (docs/cores/fineract.md#transactions) against the
 * stand-in at every release it imitates: the type mapping, reversals, keyset paging across
 * the search's offset pages, loans and term deposits, the window sent to Fineract, and an
 * account that is not the session's. Then against a hostile Fineract on loopback: missing
 * fields, a key given twice, wrong types and rows out of order are each a named protocol error.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { FineractCoreConnector } from '../../src/adapters/core/fineract/fineract-core-connector.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { FINERACT_DEFAULTS } from '../../src/domain/institution.js';
import { compareNewestFirst, type TransactionRecord } from '../../src/domain/transaction.js';
import {
  startFineractStandIn,
  STAND_IN_CREDENTIALS,
  type RunningFineractStandIn,
} from '../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import { FINERACT_RELEASES } from '../../src/fakes/fineract-stand-in/releases.js';
import { DEMO_CLIENTS } from '../../src/fakes/fineract-stand-in/stand-in-data.js';
import { checkPage } from '../../src/app/list-transactions.js';
import { AccountNotFound, CoreProtocolError, type TransactionPageRequest } from '../../src/ports/core-connector.js';
import { FakeClock } from '../support/fake-clock.js';

const sealer = new AesGcmSealer([encryptionKey(randomBytes(32))]);
const ctx = { requestId: 'tx' };
const WINDOW = { fromDate: '2025-11-01', toDate: '2026-02-28', status: 'both' } as const;
const ada = DEMO_CLIENTS[0]!;
const current = ada.savings[0]!;
/** The demo current account's transactions in the window, from the data itself. */
const inWindow = current.transactions.filter((t) => {
  const day = `${t.date[0]}-${String(t.date[1]).padStart(2, '0')}-${String(t.date[2]).padStart(2, '0')}`;
  return day >= WINDOW.fromDate && day <= WINDOW.toDate;
});

function connectorFor(url: string): FineractCoreConnector {
  return new FineractCoreConnector({
    ...FINERACT_DEFAULTS,
    baseUrl: url,
    credentials: STAND_IN_CREDENTIALS,
    institution: 'bank-one',
    timeoutMs: 10_000,
    clock: new FakeClock('2026-03-01T12:00:00Z'),
    sealer,
  });
}

/** Every page from the first, each held to what coregate checks of a core's page. */
async function allPages(
  core: FineractCoreConnector,
  session: string,
  request: Omit<TransactionPageRequest, 'cursor'>,
): Promise<{ records: TransactionRecord[]; pages: number }> {
  const records: TransactionRecord[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages < 100; pages += 1) {
    const page = await core.listTransactions(session, { ...request, cursor }, ctx);
    checkPage(page.transactions, request.accountId, request.status, request.limit);
    records.push(...page.transactions);
    if (page.nextCursor === null) return { records, pages };
    cursor = page.nextCursor;
  }
  return assert.fail('more than 100 pages');
}

for (const release of FINERACT_RELEASES) {
  describe(`Fineract transactions against the stand-in, release ${release}`, () => {
    let standIn: RunningFineractStandIn;
    let core: FineractCoreConnector;
    let session: string;
    before(async () => {
      standIn = await startFineractStandIn({ release });
      core = connectorFor(standIn.url);
      session = (await core.startSession({ kind: 'customerKey', customerKey: '1' }, ctx)).delegateReferenceId;
    });
    after(async () => {
      await core.close();
      await standIn.close();
    });

    it('pages a savings account newest first, neither repeating nor skipping, across search pages', async () => {
      standIn.requests.length = 0;
      const { records, pages } = await allPages(core, session, { ...WINDOW, accountId: 'savings-11', limit: 250 });
      assert.equal(records.length, inWindow.length);
      assert.ok(inWindow.length > 300, 'a few hundred transactions');
      assert.equal(new Set(records.map((record) => record.id)).size, records.length);
      assert.deepEqual([...records].sort(compareNewestFirst), records);
      assert.equal(pages, Math.ceil(inWindow.length / 250));
      const searches = standIn.requests.filter((request) => request.path.includes('/transactions/search?'));
      assert.ok(searches.length > pages, 'a listing page read more than one search page');
      for (const search of searches) {
        const query = new URLSearchParams(search.path.split('?')[1]);
        assert.equal(query.get('fromDate'), WINDOW.fromDate);
        assert.ok(query.get('toDate')! <= WINDOW.toDate);
        assert.equal(query.get('limit'), '200');
        assert.equal(query.get('types'), '1,2,3,4,5,7,8,17,18,19');
      }
      const deposit = records.find((record) => record.type === 'deposit')!;
      assert.equal(deposit.creditDebit, 'C');
      assert.equal(deposit.status, 'booked');
      assert.equal(deposit.bookingDate, deposit.valueDate);
      assert.equal(deposit.currency, 'USD');
      assert.equal(deposit.description, 'Deposit');
      assert.equal(typeof deposit.runningBalance, 'number');
      assert.match(deposit.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(records.find((record) => record.type === 'withdrawal')!.creditDebit, 'D');
      const interest = records.filter((record) => record.type === 'interest');
      assert.equal(interest.length, 3);
      assert.ok(interest.every((record) => record.creditDebit === 'C'));
      const reversed = records.filter((record) => record.reversed);
      assert.equal(reversed.length, inWindow.filter((t) => t.reversed).length);
      assert.ok(reversed.length > 0 && reversed.every((record) => record.runningBalance === null));
    });

    it('answers the same ids on every read, and only the window asked', async () => {
      const request = {
        accountId: 'savings-11',
        fromDate: '2026-01-10',
        toDate: '2026-01-12',
        status: 'both',
      } as const;
      const first = await core.listTransactions(session, { ...request, limit: 500 }, ctx);
      const again = await core.listTransactions(session, { ...request, limit: 500 }, ctx);
      assert.deepEqual(again, first);
      assert.equal(first.nextCursor, null);
      assert.ok(first.transactions.length > 0);
      assert.ok(
        first.transactions.every(
          (record) => record.bookingDate! >= '2026-01-10' && record.bookingDate! <= '2026-01-12',
        ),
      );
      const pending = await core.listTransactions(session, { ...request, status: 'pending', limit: 10 }, ctx);
      assert.deepEqual(pending, { transactions: [], nextCursor: null });
    });

    it('lists a loan: the disbursement as a debit, repayments as credits, what is owed after each, a reversal by hand kept as reversed', async () => {
      const { records } = await allPages(core, session, {
        accountId: 'loan-21',
        fromDate: '2025-09-01',
        toDate: '2026-03-01',
        status: 'both',
        limit: 2,
      });
      assert.deepEqual([...records].sort(compareNewestFirst), records);
      const shown = (record: TransactionRecord) =>
        [
          record.bookingDate,
          record.type,
          record.creditDebit,
          record.amount,
          record.reversed,
          record.runningBalance,
        ].join(' ');
      // Owed after each: the principal less each repayment's principal portion (amount less interest).
      assert.deepEqual(records.map(shown).sort(), [
        '2025-09-15 disbursement D 6000 false 6000',
        '2025-12-15 repayment C 193.32 false 5852.08',
        '2026-01-15 repayment C 193.32 false 5702.96',
        '2026-02-15 repayment C 193.32 false 5552.69',
        '2026-02-15 repayment C 193.32 true ',
      ]);
    });

    it('types fees, a charge, a dividend and the legs of transfers, with their direction and running balance', async () => {
      const { records } = await allPages(core, session, {
        accountId: 'savings-12',
        fromDate: '2026-01-01',
        toDate: '2026-02-28',
        status: 'both',
        limit: 100,
      });
      const shown = (record: TransactionRecord) =>
        [record.bookingDate, record.type, record.creditDebit, record.amount, record.description, record.reversed].join(
          ' ',
        );
      assert.deepEqual(records.map(shown), [
        '2026-02-28 interest C 56.85 Interest posting false',
        '2026-02-20 transfer D 80 Withdrawal false',
        '2026-02-14 fee D 1.5 Withdrawal fee false',
        '2026-02-14 withdrawal D 200 Withdrawal false',
        '2026-02-10 interest C 10 Interest posting true',
        '2026-02-03 transfer C 300 Deposit false',
        '2026-01-31 interest C 56.1 Interest posting false',
        '2026-01-20 other C 12.5 Dividend Payout false',
        '2026-01-12 fee D 4 Pay Charge false',
        '2026-01-05 fee D 25 Annual fee false',
      ]);
      // Each row's balance moves by its own amount, in its direction, from the row before it (reversed ones have none).
      const counted = [...records].reverse().filter((record) => !record.reversed);
      for (let index = 1; index < counted.length; index += 1) {
        const { amount, creditDebit, runningBalance } = counted[index]!;
        const moved = (creditDebit === 'C' ? 1 : -1) * amount;
        assert.equal(Math.round((counted[index - 1]!.runningBalance! + moved) * 100) / 100, runningBalance);
      }
    });

    it("lists a fixed deposit from the deposit's own answer, and refuses an account not the session's", async () => {
      const chloe = (await core.startSession({ kind: 'customerKey', customerKey: '3' }, ctx)).delegateReferenceId;
      const page = await core.listTransactions(
        chloe,
        { accountId: 'savings-15', fromDate: '2024-03-01', toDate: '2026-03-01', status: 'both', limit: 10 },
        ctx,
      );
      assert.ok(page.transactions.length > 0);
      assert.ok(
        standIn.requests.some((request) => request.path.includes('/fixeddepositaccounts/15?associations=transactions')),
      );
      for (const accountId of ['savings-15', 'savings-99', 'loan-23', 'checking-1', 'savings-011'])
        await assert.rejects(
          core.listTransactions(session, { ...WINDOW, accountId, limit: 10 }, ctx),
          AccountNotFound,
          accountId,
        );
    });
  });
}

describe('Fineract transactions against a hostile Fineract', () => {
  let server: Server;
  let url: string;
  let search = '';
  before(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').replace('/fineract-provider', '');
      const body =
        path === '/api/v1/clients/7'
          ? '{"id":7,"active":true}'
          : path === '/api/v1/clients/7/accounts'
            ? '{"savingsAccounts":[{"id":70,"accountNo":"A70","status":{"active":true},"depositType":{"id":100}}],' +
              '"loanAccounts":[{"id":80,"accountNo":"L80","status":{"active":true}}]}'
            : path.startsWith('/api/v1/savingsaccounts/70/transactions/search?')
              ? search
              : path === '/api/v1/loans/80?associations=transactions'
                ? `{"id":80,"clientId":8,"transactions":[]}`
                : undefined;
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(body ?? '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/fineract-provider`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const row = (fields: string) =>
    `{"id":1,"transactionType":{"id":1,"value":"Deposit"},"currency":{"code":"USD"},"reversed":false,${fields}}`;
  const page = (...rows: string[]) => `{"content":[${rows.join(',')}],"total":${rows.length}}`;

  it('refuses missing fields, a key given twice, wrong types and rows out of order, naming the field, never a value', async () => {
    const core = connectorFor(url);
    const session = (await core.startSession({ kind: 'customerKey', customerKey: '7' }, ctx)).delegateReferenceId;
    const request = { ...WINDOW, accountId: 'savings-70', limit: 10 };
    const cases: [string, RegExp][] = [
      [page(row('"date":[2026,1,5]')), /content\[0\]\.amount: expected a number, got nothing/],
      [page(row('"date":[2026,1,5],"amount":-4.25')), /content\[0\]\.amount: expected a positive number/],
      [page(row('"date":"2026-01-05","amount":4.25')), /content\[0\]\.date: expected a date as an array/],
      [page(row('"date":[2026,1,5],"amount":4.25,"amount":4.25')), /names the same key twice/],
      [page(row('"date":[2026,1,5],"amount":"4.25"')), /content\[0\]\.amount: expected a number, got a string/],
      [page(row('"date":[2026,1,5],"amount":4.25,"isReversal":"no"')), /content\[0\]\.isReversal: expected a boolean/],
      [
        page(row('"date":[2026,1,5],"amount":4.25'), row('"date":[2026,1,6],"amount":4.25')),
        /content\[1\]: out of order/,
      ],
      ['{"content":{},"total":1}', /content: expected an array/],
      ['[]', /expected an object, got an array/],
    ];
    for (const [answer, message] of cases) {
      search = answer;
      await assert.rejects(core.listTransactions(session, request, ctx), (error: unknown) => {
        assert.ok(error instanceof CoreProtocolError, String(error));
        assert.match(
          error.message,
          /^core protocol error: invalid Fineract answer to GET \/v1\/savingsaccounts\/\{id\}\/transactions\/search: /,
        );
        assert.match(error.message, message);
        assert.doesNotMatch(error.message, /4\.25|2026/);
        return true;
      });
    }
    await assert.rejects(
      core.listTransactions(session, { ...request, accountId: 'loan-80' }, ctx),
      /for another client than the session's/,
    );
    await assert.rejects(core.listTransactions(session, { ...request, cursor: 'elsewhere' }, ctx), CoreProtocolError);
    await core.close();
  });
});
