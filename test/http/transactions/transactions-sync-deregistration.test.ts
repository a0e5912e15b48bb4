/**
 * A sync racing the customer's deregistration (docs/behaviour.md#transaction-sync), on both
 * storage engines: the core's answer is held while the customer is deregistered, then
 * released; the sync answers the 404 `customer_not_registered` a deregistered customer gets
 * (never a 500 from writing under a deleted association) and nothing is kept afterwards. A
 * customer deregistered before syncing again with its cursor gets that 404 too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import type {
  CoreCallContext,
  CoreConnector,
  TransactionPage,
  TransactionPageRequest,
} from '../../../src/ports/core-connector.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { assertError, assertSuccess, FollowingClock } from '../gateway/gateway-requests.js';
import {
  CHECKING,
  freshToken,
  registeredCustomer,
  syncAll,
  syncTransactions,
  type Customer,
} from './transaction-requests.js';

/** The simulator's connector, whose transactions answers wait while {@link HeldCore.hold} is on. */
class HeldCore {
  readonly connector: CoreConnector;
  private gate: { arrived: () => void; release: Promise<void> } | undefined;

  constructor(simulator: CoreSimulator) {
    const inner = new InProcessCoreConnector(simulator);
    this.connector = {
      startSession: inner.startSession.bind(inner),
      listAccounts: inner.listAccounts.bind(inner),
      listTransactions: async (
        delegateReferenceId: string,
        request: TransactionPageRequest,
        context: CoreCallContext,
      ): Promise<TransactionPage> => {
        const page = await inner.listTransactions(delegateReferenceId, request, context);
        const gate = this.gate;
        if (gate) {
          gate.arrived();
          await gate.release;
        }
        return page;
      },
      close: () => inner.close(),
    };
  }

  /** Holds the next answers; resolves `arrived` once one is held, and lets them go on `release()`. */
  hold(): { arrived: Promise<void>; release: () => void } {
    let release!: () => void;
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.gate = { arrived, release: released };
    return {
      arrived: arrival,
      release: () => {
        this.gate = undefined;
        release();
      },
    };
  }
}

for (const backend of BACKENDS) {
  describe(`a sync racing deregistration (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let core: HeldCore;
    before(async () => {
      const clock = new FollowingClock();
      core = new HeldCore(new CoreSimulator({ clock }));
      h = await createHarness(backend, { core: core.connector });
      clock.target = h.clock;
    });
    after(() => h?.close());

    async function deregister(customer: Customer): Promise<void> {
      assertSuccess(
        await h.app.inject({
          method: 'DELETE',
          url: `/core/sessions?customerId=${customer.customerId}`,
          headers: { authorization: `Bearer ${customer.token}` },
        }),
        'deregistration',
      );
    }

    async function keptStates(customer: Customer): Promise<number> {
      const rows = await h.services.database.query<{ n: number }>(
        'select count(*)::int as n from transaction_sync_states where customer_id = $1',
        [customer.customerId],
      );
      return Number(rows[0]!.n);
    }

    /** Starts a sync, deregisters while its core answer is held, releases it: its answer. */
    async function raced(customer: Customer, cursor?: string) {
      const held = core.hold();
      const sync = syncTransactions(h, customer, { accountId: CHECKING, cursor, count: 500 });
      await held.arrived;
      await deregister(customer);
      held.release();
      return sync;
    }

    function assertNotRegistered(response: Awaited<ReturnType<typeof raced>>): void {
      const body = assertError(response, { status: 404, name: 'NotFound', className: 'not-found' });
      assert.equal(body.data.reason, 'customer_not_registered');
    }

    it('a first sync (no cursor) answers 404 and keeps nothing', async () => {
      const ada = await registeredCustomer(h, 'tx-race-first');
      assertNotRegistered(await raced(ada));
      assert.equal(await keptStates(ada), 0);
    });

    it('a sync with changes to tell answers 404 and keeps nothing', async () => {
      const ada = await registeredCustomer(h, 'tx-race-next');
      const first = await syncAll(h, ada, CHECKING, undefined, 500);
      assert.equal(await keptStates(ada), 1);
      // A day on, pending transactions are booked: the next sync has changes to write.
      h.clock.advance(86_400);
      await freshToken(h, ada);
      assertNotRegistered(await raced(ada, first.cursor));
      assert.equal(await keptStates(ada), 0);
    });

    it('a customer deregistered before its next sync answers 404 with the cursor it was given, not invalid_cursor', async () => {
      const ada = await registeredCustomer(h, 'tx-gone-before');
      const first = await syncAll(h, ada, CHECKING, undefined, 500);
      await deregister(ada);
      assertNotRegistered(await syncTransactions(h, ada, { accountId: CHECKING, cursor: first.cursor, count: 500 }));
      assert.equal(await keptStates(ada), 0);
    });
  });
}
