/**
 * `POST /core/sessions` → 200 (docs/behaviour.md#registration): both forms
 * (docs/behaviour.md#registration-forms), SSN/TIN with and without dashes, birthDay as
 * YYYY-MM-DD and MM/DD/YYYY; the success envelope with `data = {customerId, customerKey}`; the
 * same customerId for the same core customer again is idempotent; one core customer under
 * several customerIds of one platform; every customerKey answered is accepted back in Form B.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { CombinedDirectory, ListDirectory, type CoreCustomer } from '../../../src/fakes/core-simulator/customers.js';
import { demoDirectory } from '../../../src/fakes/core-simulator/demo-data.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  ADA,
  assertSuccess,
  associationCount,
  associationRow,
  BOB,
  demoCustomer,
  EVE,
  FollowingClock,
  formA,
  formB,
  getAccounts,
  postSession,
  uniqueId,
  type FormAOptions,
} from './gateway-requests.js';

/** A customer whose core key is as long as the core protocol allows (128 visible ASCII characters). */
const LONG_CUSTOMER_KEY = `K-${'0123456789'.repeat(13).slice(0, 126)}`;
const LONG_KEY: CoreCustomer = {
  customerKey: LONG_CUSTOMER_KEY,
  socialSecurityNumber: '111-22-3334',
  accountNumber: '80001234',
  birthDay: '1990-01-31',
  accounts: [{ ...ADA.accounts[0]!, customerKey: LONG_CUSTOMER_KEY }],
};

interface Registered {
  customerId: string;
  customerKey: string;
}

for (const backend of BACKENDS) {
  describe(`POST /core/sessions 200 (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    let platform: string;
    // The demo customers, and one with a long key.
    const clock = new FollowingClock();
    const simulator = new CoreSimulator({
      clock,
      customers: new CombinedDirectory([new ListDirectory([LONG_KEY]), demoDirectory()]),
    });
    before(async () => {
      h = await createHarness(backend, { core: new InProcessCoreConnector(simulator) });
      clock.target = h.clock;
      const client = await h.client({ platform: 'sessions-200' });
      platform = client.platform;
      token = await h.token(client);
    });
    after(() => h?.close());

    it('registers by demographics (Form A), in every accepted spelling, answering {customerId, customerKey}', async () => {
      const spellings: FormAOptions[] = [
        { ssn: 'dashes', birthDay: 'iso' },
        { ssn: 'digits', birthDay: 'iso' },
        { ssn: 'dashes', birthDay: 'us' },
        { ssn: 'digits', birthDay: 'us' },
      ];
      for (const customer of [ADA, BOB, demoCustomer('C-1003'), demoCustomer('C-1004'), EVE]) {
        for (const spelling of spellings) {
          const customerId = uniqueId('form-a');
          const before = simulator.stats().sessionsStarted;
          const data = assertSuccess<Registered>(
            await postSession(h, { token }, formA(customerId, customer, spelling)),
            JSON.stringify(spelling),
          );
          assert.deepEqual(data, { customerId, customerKey: customer.customerKey }, JSON.stringify(spelling));
          assert.equal(simulator.stats().sessionsStarted, before + 1, 'one core session started');
          const row = await associationRow(h, platform, customerId);
          assert.equal(row?.customer_key, customer.customerKey, 'the association is stored');
        }
      }
    });

    it('registers by core customer key (Form B)', async () => {
      for (const customer of [ADA, EVE]) {
        const customerId = uniqueId('form-b');
        assert.deepEqual(assertSuccess(await postSession(h, { token }, formB(customerId, customer.customerKey))), {
          customerId,
          customerKey: customer.customerKey,
        });
        assert.equal((await associationRow(h, platform, customerId))?.customer_key, customer.customerKey);
      }
    });

    it('accepts back as Form B every customerKey it answered, up to 128 characters', async () => {
      assert.equal(LONG_KEY.customerKey.length, 128);
      const byDemographics = uniqueId('long-key');
      const data = assertSuccess<Registered>(await postSession(h, { token }, formA(byDemographics, LONG_KEY)));
      assert.deepEqual(data, { customerId: byDemographics, customerKey: LONG_KEY.customerKey });
      const byKey = uniqueId('long-key');
      assert.deepEqual(assertSuccess(await postSession(h, { token }, formB(byKey, data.customerKey))), {
        customerId: byKey,
        customerKey: LONG_KEY.customerKey,
      });
      assertSuccess(await postSession(h, { token }, formB(byDemographics, data.customerKey)), 'idempotent by key');
      assert.equal(assertSuccess<unknown[]>(await getAccounts(h, { token }, byKey)).length, 1);
    });

    it('stores the delegate reference ID sealed and the core session’s expiration', async () => {
      const customerId = uniqueId('stored');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      const row = (await associationRow(h, platform, customerId))!;
      // Built-in simulator default: sessions last 900 s.
      assert.equal(row.expires_at.getTime(), h.clock.now().getTime() + 900_000);
      assert.match(row.delegate_sealed, /^v1\./, 'sealed, not in clear');
      assert.equal(row.needs_reregistration, false);
    });

    it('accepts the customerId at its limits: 1 and 128 printable characters; refuses blanks around it, like GET /core/accounts', async () => {
      const short = 'x';
      const long = `${uniqueId('long')}-`.padEnd(128, '~!#$%&*+');
      for (const customerId of [short, long]) {
        assert.deepEqual(assertSuccess(await postSession(h, { token }, formB(customerId))), {
          customerId,
          customerKey: ADA.customerKey,
        });
      }
      // One rule on every endpoint: an identifier is exact, blanks around it are a 400.
      const padded = uniqueId('padded');
      const registration = await postSession(h, { token }, formB(`  ${padded} `));
      assert.equal(registration.statusCode, 400, registration.body);
      assert.deepEqual(registration.json().data.errors, [
        { path: '/registration/customerId', message: 'must be 1 to 128 printable characters without spaces' },
      ]);
      const accounts = await getAccounts(h, { token }, `  ${padded} `);
      assert.equal(accounts.statusCode, 400, accounts.body);
    });

    it('is idempotent: the same customerId for the same core customer answers 200 again and duplicates nothing', async () => {
      const customerId = uniqueId('again');
      const first = assertSuccess(await postSession(h, { token }, formA(customerId)));
      const rowsAfterFirst = await associationCount(h);
      const firstRow = (await associationRow(h, platform, customerId))!;
      // Again in each spelling, and by customer key: all name the same core customer.
      const bodies = [formA(customerId), formA(customerId, ADA, { ssn: 'digits', birthDay: 'us' }), formB(customerId)];
      for (const body of bodies) {
        assert.deepEqual(assertSuccess(await postSession(h, { token }, body)), first, JSON.stringify(body));
      }
      assert.equal(await associationCount(h), rowsAfterFirst, 'no row added');
      const rows = await h.services.database.query(
        'select 1 from associations where platform = $1 and customer_id = $2',
        [platform, customerId],
      );
      assert.equal(rows.length, 1);
      const row = (await associationRow(h, platform, customerId))!;
      assert.equal(row.customer_key, ADA.customerKey);
      assert.ok(row.version > firstRow.version, 'the association took the newest core session');
      const accounts = assertSuccess<Array<{ id: string }>>(await getAccounts(h, { token }, customerId));
      assert.deepEqual(
        accounts.map((account) => account.id),
        ADA.accounts.map((account) => account.id),
      );
    });

    it('stores one association when the same registration arrives 20 times at once', async () => {
      const customerId = uniqueId('parallel');
      const rows = await associationCount(h);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          postSession(h, { token }, index % 2 ? formB(customerId) : formA(customerId)),
        ),
      );
      for (const response of responses)
        assert.deepEqual(assertSuccess(response), { customerId, customerKey: ADA.customerKey });
      assert.equal(await associationCount(h), rows + 1, 'one row');
      assertSuccess(await getAccounts(h, { token }, customerId));
    });

    it('registers one core customer under several customerIds of one platform, each with its own working session', async () => {
      const ids = [uniqueId('many'), uniqueId('many'), uniqueId('many')];
      for (const customerId of ids) {
        assert.deepEqual(assertSuccess(await postSession(h, { token }, formA(customerId, BOB))), {
          customerId,
          customerKey: BOB.customerKey,
        });
      }
      const sealed = new Set<string>();
      for (const customerId of ids) {
        const row = (await associationRow(h, platform, customerId))!;
        assert.equal(row.customer_key, BOB.customerKey);
        sealed.add(row.delegate_sealed);
      }
      assert.equal(sealed.size, ids.length, 'one core session per customerId');
      // Starting the later sessions did not invalidate the earlier ones.
      const before = simulator.stats().sessionsStarted;
      for (const customerId of ids) {
        const accounts = assertSuccess<Array<{ customerKey: string }>>(await getAccounts(h, { token }, customerId));
        assert.equal(accounts.length, BOB.accounts.length);
        assert.ok(accounts.every((account) => account.customerKey === BOB.customerKey));
      }
      assert.equal(simulator.stats().sessionsStarted, before, 'no renewal was needed');
    });
  });
}
