/**
 * `GET /core/transactions` and its sync refusing what they must (docs/behaviour.md#transactions):
 * another customer's account, an unknown account, an unknown or another platform's customer are
 * one and the same 404; a cursor tampered with, malformed, or used for another platform,
 * customer, account, filters or kind is 400 `invalid_cursor`; bad parameters are 400
 * `invalid_request` naming the parameter, whatever is sent (a fast-check property), never a 500;
 * a core without the transactions call is 501 `not_supported_by_core`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { BACKENDS, QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertBadRequest,
  assertError,
  assertSuccess,
  BOB,
  FollowingClock,
  NOT_FOUND,
} from '../gateway/gateway-requests.js';
import {
  CHECKING,
  getTransactions,
  registeredCustomer,
  SAVINGS,
  syncTransactions,
  type Customer,
  type Page,
  type SyncData,
} from './transaction-requests.js';

function invalidCursor(response: Awaited<ReturnType<typeof getTransactions>>, why: string): void {
  assert.equal(assertBadRequest(response, ['/cursor'], why).data.reason, 'invalid_cursor', why);
}

for (const backend of BACKENDS) {
  describe(`transactions refused (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let ada: Customer;
    before(async () => {
      h = await createHarness(backend);
      ada = await registeredCustomer(h, 'tx-4xx');
    });
    after(() => h?.close());

    it('answers the same 404 for another customer’s account, an unknown account, and unknown or foreign customers', async () => {
      const bob = await registeredCustomer(h, 'tx-4xx', BOB.customerKey);
      const other = await registeredCustomer(h, 'tx-4xx-other');
      const answers = [
        await getTransactions(h, bob, { accountId: CHECKING }),
        await getTransactions(h, ada, { accountId: 'no-such-account' }),
        await getTransactions(h, { ...ada, customerId: 'never-registered' }, { accountId: CHECKING }),
        await getTransactions(h, { ...other, customerId: ada.customerId }, { accountId: CHECKING }),
        await syncTransactions(h, bob, { accountId: CHECKING }),
      ];
      const bodies = answers.map((answer) => {
        const body = assertError(answer, NOT_FOUND);
        return { message: body.message, reason: body.data.reason };
      });
      for (const body of bodies) assert.deepEqual(body, bodies[0]);
    });

    it('refuses every misuse of a cursor with invalid_cursor', async () => {
      const first = assertSuccess<Page>(await getTransactions(h, ada, { accountId: CHECKING, limit: 5 }));
      const cursor = first.nextCursor!;
      assertSuccess(await getTransactions(h, ada, { accountId: CHECKING, cursor }), 'the cursor itself works');
      const flipped = cursor.slice(0, -3) + (cursor.at(-3) === 'A' ? 'B' : 'A') + cursor.slice(-2);
      invalidCursor(await getTransactions(h, ada, { accountId: CHECKING, cursor: flipped }), 'tampered');
      invalidCursor(await getTransactions(h, ada, { accountId: CHECKING, cursor: 'not-a-cursor' }), 'malformed');
      invalidCursor(await getTransactions(h, ada, { accountId: SAVINGS, cursor }), 'another account');
      invalidCursor(await getTransactions(h, ada, { accountId: CHECKING, cursor, status: 'booked' }), 'another status');
      invalidCursor(
        await getTransactions(h, ada, { accountId: CHECKING, cursor, fromDate: '2026-01-01' }),
        'another fromDate',
      );
      const sameCustomerAgain = await registeredCustomer(h, 'tx-4xx');
      invalidCursor(await getTransactions(h, sameCustomerAgain, { accountId: CHECKING, cursor }), 'another customerId');
      const otherPlatform = await registeredCustomer(h, 'tx-4xx-foreign');
      invalidCursor(
        await getTransactions(h, { ...otherPlatform, customerId: ada.customerId }, { accountId: CHECKING, cursor }),
        'another platform',
      );
      const sync = assertSuccess<SyncData>(await syncTransactions(h, ada, { accountId: SAVINGS }));
      invalidCursor(await getTransactions(h, ada, { accountId: SAVINGS, cursor: sync.nextCursor }), 'a sync cursor');
      invalidCursor(await syncTransactions(h, ada, { accountId: SAVINGS, cursor }), 'a page cursor for sync');
      invalidCursor(
        await syncTransactions(h, ada, { accountId: CHECKING, cursor: sync.nextCursor }),
        'sync, another account',
      );
    });

    it('names the bad parameter: days, order, range, limit, count, status', async () => {
      const cases: [Record<string, string | number>, string[]][] = [
        [{ fromDate: '2026-02-30' }, ['/fromDate']],
        [{ toDate: '2026-13-01' }, ['/toDate']],
        [{ fromDate: '01/02/2026' }, ['/fromDate']],
        [{ fromDate: '2026-02-02', toDate: '2026-02-01' }, ['/fromDate']],
        [{ fromDate: '2024-01-01', toDate: '2026-01-02' }, ['/fromDate']],
        [{ limit: 0 }, ['/limit']],
        [{ limit: 501 }, ['/limit']],
        [{ limit: 'ten' }, ['/limit']],
        [{ status: 'posted' }, ['/status']],
      ];
      for (const [parameters, paths] of cases) {
        const response = await getTransactions(h, ada, { accountId: CHECKING, ...parameters });
        assert.equal(assertBadRequest(response, paths, JSON.stringify(parameters)).data.reason, 'invalid_request');
      }
      assertSuccess(
        await getTransactions(h, ada, { accountId: CHECKING, fromDate: '2024-01-01', toDate: '2026-01-01' }),
      );
      assertBadRequest(await getTransactions(h, ada, {}), ['/accountId']);
      assertBadRequest(await syncTransactions(h, ada, { accountId: CHECKING, count: 0 }), ['/count']);
      assertBadRequest(await syncTransactions(h, ada, { accountId: CHECKING, count: 501 }), ['/count']);
    });
  });
}

describe('transactions: any query parameters are a 200 or a 400 naming them, never a 500', () => {
  let h: Harness;
  let ada: Customer;
  before(async () => {
    h = await createHarness(QUICKEST_BACKEND);
    ada = await registeredCustomer(h, 'tx-fuzz');
  });
  after(() => h?.close());

  it('holds for generated fromDate, toDate, status, limit and cursor', async () => {
    const day = fc
      .tuple(fc.integer({ min: 1990, max: 2030 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
      .map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
    const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          fromDate: maybe(fc.oneof(day, fc.string())),
          toDate: maybe(fc.oneof(day, fc.string())),
          status: maybe(fc.oneof(fc.constantFrom('booked', 'pending', 'both'), fc.string())),
          limit: maybe(fc.oneof(fc.integer({ min: -5, max: 600 }), fc.string())),
          cursor: maybe(fc.string({ minLength: 1 })),
        }),
        async (parameters) => {
          const response = await getTransactions(h, ada, { accountId: CHECKING, ...parameters });
          if (response.statusCode === 200) return;
          const body = assertError(response, { status: 400, name: 'BadRequest', className: 'bad-request' });
          assert.ok(['invalid_request', 'invalid_cursor'].includes(body.data.reason!), response.body);
          for (const error of body.data.errors ?? [])
            assert.ok(['/fromDate', '/toDate', '/status', '/limit', '/cursor'].includes(error.path), response.body);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('transactions from a core without the call', () => {
  let h: Harness;
  before(async () => {
    const clock = new FollowingClock();
    const simulator = new CoreSimulator({ clock });
    // The in-process connector without its transactions call: a core of protocol 1.0.
    const connector = new InProcessCoreConnector(simulator);
    const withoutTransactions = {
      startSession: connector.startSession.bind(connector),
      listAccounts: connector.listAccounts.bind(connector),
      close: () => connector.close(),
    };
    h = await createHarness(QUICKEST_BACKEND, { core: withoutTransactions });
    clock.target = h.clock;
  });
  after(() => h?.close());

  it('answers 501 not_supported_by_core to a page and to a sync', async () => {
    const ada = await registeredCustomer(h, 'tx-501');
    for (const response of [
      await getTransactions(h, ada, { accountId: CHECKING }),
      await syncTransactions(h, ada, { accountId: CHECKING }),
    ]) {
      const body = assertError(response, { status: 501, name: 'NotImplemented', className: 'not-implemented' });
      assert.equal(body.data.reason, 'not_supported_by_core');
    }
  });
});
