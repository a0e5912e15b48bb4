/**
 * Associations are keyed by (platform, customerId) (docs/behaviour.md#not-found): a platform
 * never reaches another platform's customers, and cannot even tell whether a
 * customerId exists there; two platforms may use the same customerId for
 * different core customers. Clients of one platform share its customers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  ADA,
  assertError,
  assertSuccess,
  associationCount,
  associationRow,
  BOB,
  formA,
  formB,
  getAccounts,
  NOT_FOUND,
  postSession,
  uniqueId,
} from './gateway-requests.js';

for (const backend of BACKENDS) {
  describe(`tenancy: platforms are isolated (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let tokenA: string;
    let tokenA2: string;
    let tokenB: string;
    before(async () => {
      h = await createHarness(backend);
      tokenA = await h.token(await h.client({ platform: 'bank-a' }));
      tokenA2 = await h.token(await h.client({ platform: 'bank-a', name: 'second client of bank-a' }));
      tokenB = await h.token(await h.client({ platform: 'bank-b' }));
    });
    after(() => h?.close());

    it('answers another platform exactly as for an unknown customerId (404, same body, core not called)', async () => {
      const customerId = uniqueId('shared-name');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      const stats = h.services.simulator!.stats();
      const foreign = await getAccounts(h, { token: tokenB }, customerId);
      const unknown = await getAccounts(h, { token: tokenB }, uniqueId('nobody'));
      assertError(foreign, NOT_FOUND, 'another platform’s customer');
      assertError(unknown, NOT_FOUND, 'an unknown customer');
      // Equal but for each answer's own request id (data.requestId, a UUID of fixed length).
      const withoutRequestId = (body: string) => body.replace(/"requestId":"[^"]*"/, '"requestId":"-"');
      assert.equal(withoutRequestId(foreign.body), withoutRequestId(unknown.body), 'no existence leak in the body');
      assert.equal(foreign.headers['content-length'], unknown.headers['content-length']);
      assert.deepEqual(h.services.simulator!.stats(), stats, 'the core was not called');
      assertSuccess(await getAccounts(h, { token: tokenA }, customerId), 'its own platform still sees it');
    });

    it('lets two platforms register the same customerId for different core customers, each seeing its own accounts', async () => {
      const customerId = uniqueId('same-id');
      assert.deepEqual(assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA))), {
        customerId,
        customerKey: ADA.customerKey,
      });
      assert.deepEqual(
        assertSuccess(await postSession(h, { token: tokenB }, formA(customerId, BOB))),
        { customerId, customerKey: BOB.customerKey },
        'no 409 across platforms',
      );
      const seenByA = assertSuccess<Array<{ id: string; customerKey: string }>>(
        await getAccounts(h, { token: tokenA }, customerId),
      );
      const seenByB = assertSuccess<Array<{ id: string; customerKey: string }>>(
        await getAccounts(h, { token: tokenB }, customerId),
      );
      assert.deepEqual(
        seenByA.map((account) => account.id),
        ADA.accounts.map((account) => account.id),
      );
      assert.deepEqual(
        seenByB.map((account) => account.id),
        BOB.accounts.map((account) => account.id),
      );
      assert.equal((await associationRow(h, 'bank-a', customerId))?.customer_key, ADA.customerKey);
      assert.equal((await associationRow(h, 'bank-b', customerId))?.customer_key, BOB.customerKey);
      // Re-registering on one platform does not touch the other's association.
      const rowB = await associationRow(h, 'bank-b', customerId);
      assertSuccess(await postSession(h, { token: tokenA }, formB(customerId, ADA.customerKey)));
      assert.deepEqual(await associationRow(h, 'bank-b', customerId), rowB);
    });

    it('answers 409 only within a platform', async () => {
      const customerId = uniqueId('conflict-scope');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      assertError(
        await postSession(h, { token: tokenA2 }, formA(customerId, BOB)),
        { status: 409, name: 'Conflict', className: 'conflict' },
        'same platform, another client',
      );
      assertSuccess(await postSession(h, { token: tokenB }, formA(customerId, BOB)), 'another platform');
    });

    it('shares a platform’s customers between its clients', async () => {
      const customerId = uniqueId('shared-client');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, BOB)));
      const rows = await associationCount(h, 'bank-a');
      assertSuccess(await getAccounts(h, { token: tokenA2 }, customerId));
      assertSuccess(
        await postSession(h, { token: tokenA2 }, formA(customerId, BOB)),
        'idempotent across the platform’s clients',
      );
      assert.equal(await associationCount(h, 'bank-a'), rows);
    });

    it('keeps a client without --platform on a platform of its own', async () => {
      const loner = await h.client();
      const token = await h.token(loner);
      const customerId = uniqueId('loner');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId)));
      assertError(await getAccounts(h, { token }, customerId), NOT_FOUND);
      assertSuccess(await postSession(h, { token }, formA(customerId, BOB)));
      assert.equal((await associationRow(h, loner.platform, customerId))?.customer_key, BOB.customerKey);
    });
  });
}
