/**
 * `GET /core/transactions` and `/core/transactions/sync` end to end with the Fineract connector
 * as the core, over a real socket to the Fineract stand-in, on both stores
 * (docs/cores/fineract.md#transactions): every page of the demo current account's few hundred
 * transactions in order, a loan, an account of another client, a sync and the one after it,
 * and Fineract answering off its shape as a 502.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { FineractCoreConnector } from '../../../src/adapters/core/fineract/fineract-core-connector.js';
import { AesGcmSealer } from '../../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../../src/adapters/crypto/encryption-keys.js';
import { FINERACT_DEFAULTS } from '../../../src/domain/institution.js';
import { compareNewestFirst } from '../../../src/domain/transaction.js';
import {
  startFineractStandIn,
  type RunningFineractStandIn,
} from '../../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import { DEMO_CLIENTS } from '../../../src/fakes/fineract-stand-in/stand-in-data.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { assertError, assertSuccess, BAD_GATEWAY, FollowingClock, NOT_FOUND } from '../gateway/gateway-requests.js';
import {
  allPages,
  getTransactions,
  registeredCustomer,
  syncAll,
  type Customer,
  type Page,
} from './transaction-requests.js';

const current = DEMO_CLIENTS[0]!.savings[0]!;
const dayOf = (date: readonly [number, number, number]) =>
  `${date[0]}-${String(date[1]).padStart(2, '0')}-${String(date[2]).padStart(2, '0')}`;
const countBetween = (from: string, to: string) =>
  current.transactions.filter((t) => dayOf(t.date) >= from && dayOf(t.date) <= to).length;

for (const backend of BACKENDS) {
  describe(
    `transactions with the Fineract connector (${backend.name})`,
    { skip: backend.skip, timeout: 60_000 },
    () => {
      let h: Harness;
      let standIn: RunningFineractStandIn;
      let ada: Customer;
      const clock = new FollowingClock();

      before(async () => {
        standIn = await startFineractStandIn();
        const core = new FineractCoreConnector({
          ...FINERACT_DEFAULTS,
          baseUrl: standIn.url,
          credentials: standIn.credentials,
          institution: 'default',
          timeoutMs: 5000,
          clock,
          sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
        });
        h = await createHarness(backend, { core, env: { COREGATE_CORE_BREAKER_FAILURES: '0' } });
        clock.target = h.clock;
        ada = await registeredCustomer(h, 'fineract-tx', '1');
      });
      after(async () => {
        await h?.close();
        await standIn?.close();
      });

      it('pages every transaction of the window newest first, none twice', async () => {
        const window = { accountId: 'savings-11', fromDate: '2025-11-01', toDate: '2026-02-28' };
        const records = await allPages(h, ada, { ...window, limit: 100 });
        assert.equal(records.length, countBetween(window.fromDate, window.toDate));
        assert.ok(records.length > 300);
        assert.equal(new Set(records.map((record) => record.id)).size, records.length);
        assert.deepEqual([...records].sort(compareNewestFirst), records);
        assert.ok(records.some((record) => record.reversed));
        assert.deepEqual(Object.keys(records[0]!).sort(), [
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
        ]);
        const pending = assertSuccess<Page>(await getTransactions(h, ada, { ...window, status: 'pending' }));
        assert.deepEqual(pending, { transactions: [], nextCursor: null });
      });

      it("lists a loan, and answers 404 for another client's account", async () => {
        const loan = await allPages(h, ada, { accountId: 'loan-21', fromDate: '2025-09-01', toDate: '2026-02-28' });
        assert.deepEqual(
          loan.map((record) => record.type),
          ['repayment', 'repayment', 'repayment', 'repayment', 'disbursement'],
        );
        assertError(await getTransactions(h, ada, { accountId: 'savings-15' }), NOT_FOUND);
      });

      it('syncs the 90-day window, then finds nothing changed', async () => {
        const first = await syncAll(h, ada, 'savings-11', undefined, 100);
        assert.equal(first.added.length, countBetween('2025-12-01', '2026-03-01'));
        assert.ok(first.pages > 1);
        const second = await syncAll(h, ada, 'savings-11', first.cursor);
        assert.deepEqual([second.added, second.modified, second.removed], [[], [], []]);
      });

      it('answers 502 when Fineract answers off its shape', async () => {
        standIn.setFaults({ malformed: true });
        try {
          assertError(await getTransactions(h, ada, { accountId: 'savings-11' }), BAD_GATEWAY);
        } finally {
          standIn.setFaults({});
        }
      });
    },
  );
}
