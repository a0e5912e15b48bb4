/**
 * `getCustomer` and `deregisterCustomer` of `@coregate/client` against a real
 * coregate listening on a socket (docs/behaviour.md#customer-lifecycle): the state of a registered
 * customer, deregistration, and the 404 that follows, as a `CoregateError`.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CoregateClient, CoregateError } from '@coregate/client';
import { QUICKEST_BACKEND } from '../support/backends.js';
import { createHarness, type Harness } from '../support/harness.js';

describe(
  '@coregate/client customer lifecycle against a running coregate',
  { skip: QUICKEST_BACKEND.skip, timeout: 60_000 },
  () => {
    let harness: Harness;
    let cg: CoregateClient;

    before(async () => {
      harness = await createHarness(QUICKEST_BACKEND);
      await harness.app.listen({ port: 0, host: '127.0.0.1' });
      const baseUrl = `http://127.0.0.1:${(harness.app.server.address() as AddressInfo).port}`;
      const credentials = await harness.client({ platform: 'sdk-lifecycle' });
      cg = new CoregateClient({ baseUrl, clientId: credentials.id, clientSecret: credentials.secret });
    });

    after(() => harness?.close());

    it('reads a registered customer, deregisters it, and then gets 404', async () => {
      await cg.registerCustomer({ customerId: 'sdk-life/1', customer: { customerKey: 'C-1001' } });
      const registered = harness.clock.now().toISOString();
      assert.deepEqual(await cg.getCustomer('sdk-life/1'), {
        customerId: 'sdk-life/1',
        customerKey: 'C-1001',
        status: 'active',
        registeredAt: registered,
        updatedAt: registered,
      });
      assert.deepEqual(await cg.deregisterCustomer('sdk-life/1'), { customerId: 'sdk-life/1' });
      for (const call of [
        () => cg.getCustomer('sdk-life/1'),
        () => cg.deregisterCustomer('sdk-life/1'),
        () => cg.listAccounts('sdk-life/1'),
      ]) {
        await assert.rejects(call(), (error: unknown) => error instanceof CoregateError && error.status === 404);
      }
    });
  },
);
