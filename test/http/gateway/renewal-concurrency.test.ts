/**
 * Concurrent calls for one association start at most one new core session
 * (docs/behaviour.md#single-renewal), inside one process: 50 parallel account calls on an expired
 * association, or on one the core has just rejected, all answer 200 and the core
 * sees exactly one new session. The multi-process case is
 * test/e2e/gateway-two-processes.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertSuccess,
  associationRow,
  BOB,
  demoCustomer,
  formA,
  getAccounts,
  postSession,
  uniqueId,
} from './gateway-requests.js';

const PARALLEL = 50;
const TTL_SECONDS = 120;

for (const backend of BACKENDS) {
  describe(`concurrent renewals (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    let platform: string;
    before(async () => {
      h = await createHarness(backend, { env: { COREGATE_SIM_SESSION_TTL_SECONDS: String(TTL_SECONDS) } });
      const client = await h.client({ platform: 'concurrency' });
      platform = client.platform;
      token = await h.token(client);
    });
    after(() => h?.close());

    async function burst(customerIds: readonly string[]): Promise<string[]> {
      const responses = await Promise.all(
        Array.from({ length: PARALLEL }, (_, index) =>
          getAccounts(h, { token }, customerIds[index % customerIds.length]),
        ),
      );
      responses.forEach((response, index) => assertSuccess(response, `call ${index}`));
      return responses.map((response) => response.body);
    }

    it(`${PARALLEL} parallel calls on an expired association all answer 200 and start exactly one core session`, async () => {
      const customerId = uniqueId('expired');
      assertSuccess(await postSession(h, { token }, formA(customerId, BOB)));
      const expected = (await getAccounts(h, { token }, customerId)).body;
      const version = (await associationRow(h, platform, customerId))!.version;
      h.clock.advance(TTL_SECONDS + 5);
      const before = h.services.simulator!.stats();
      const bodies = await burst([customerId]);
      assert.ok(
        bodies.every((body) => body === expected),
        'every caller got the same answer',
      );
      const after = h.services.simulator!.stats();
      assert.equal(after.sessionsStarted, before.sessionsStarted + 1, 'exactly one new core session');
      assert.equal(after.accountRequests, before.accountRequests + PARALLEL, 'no rejected call, no retry');
      assert.equal((await associationRow(h, platform, customerId))!.version, version + 1, 'stored once');
    });

    it(`${PARALLEL} parallel calls on a session the core rejects all answer 200 and start exactly one core session`, async () => {
      const customerId = uniqueId('rejected');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      const expected = (await getAccounts(h, { token }, customerId)).body;
      h.services.simulator!.expireAll();
      const before = h.services.simulator!.stats();
      const bodies = await burst([customerId]);
      assert.ok(bodies.every((body) => body === expected));
      assert.equal(
        h.services.simulator!.stats().sessionsStarted,
        before.sessionsStarted + 1,
        'exactly one new core session',
      );
    });

    it('renews each of several expired associations once when their calls interleave', async () => {
      const customers = [
        BOB,
        demoCustomer('C-1003'),
        demoCustomer('C-1004'),
        demoCustomer('C-1005'),
        demoCustomer('C-1001'),
      ];
      const ids = customers.map(() => uniqueId('interleaved'));
      for (const [index, customerId] of ids.entries())
        assertSuccess(await postSession(h, { token }, formA(customerId, customers[index])));
      h.clock.advance(TTL_SECONDS + 5);
      const before = h.services.simulator!.stats().sessionsStarted;
      await burst(ids);
      assert.equal(
        h.services.simulator!.stats().sessionsStarted,
        before + ids.length,
        'one new session per association',
      );
    });
  });
}
