/**
 * `GET /core/accounts?customerId=` → 200 (docs/behaviour.md#accounts): the
 * success envelope around an array of account records with exactly the documented
 * 27 fields and their JSON types, date-times without zone, `0001-01-01T00:00:00`
 * for no date; a customer without accounts → `data: []`; the stored delegate
 * reference ID is what reaches the core.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO_CUSTOMERS } from '../../../src/fakes/core-simulator/demo-data.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ADA, assertSuccess, EVE, formA, formB, getAccounts, postSession, uniqueId } from './gateway-requests.js';

/** The account record (docs/behaviour.md#accounts), field by field, with the JSON type each one has. */
const SPEC_FIELDS: Record<string, 'string' | 'letter' | 'number' | 'boolean' | 'date-time' | 'Y/N'> = {
  id: 'string',
  customerKey: 'string',
  guid: 'string',
  nickname: 'string',
  accountReferenceId: 'string',
  type: 'letter',
  currentBalance: 'number',
  availableBalance: 'number',
  interestRate: 'number',
  accruedInterest: 'number',
  yearToDateInterest: 'number',
  paidYearToDateInterest: 'number',
  pastDueAmount: 'number',
  creditLimit: 'number',
  availableCredit: 'number',
  originationDate: 'date-time',
  nextPaymentDate: 'date-time',
  maturityDate: 'date-time',
  productCode: 'string',
  isDefault: 'boolean',
  hasCard: 'boolean',
  receiveEmailNotices: 'Y/N',
  receiveEmailStatements: 'Y/N',
  receivePaperNotices: 'Y/N',
  receivePaperStatements: 'Y/N',
  authorizationCode: 'letter',
  originalBalance: 'number',
};
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const NO_DATE = '0001-01-01T00:00:00';

function assertAccountRecord(record: Record<string, unknown>, why: string): void {
  assert.deepEqual(
    Object.keys(record).sort(),
    Object.keys(SPEC_FIELDS).sort(),
    `${why}: exactly the documented fields`,
  );
  for (const [field, kind] of Object.entries(SPEC_FIELDS)) {
    const value = record[field];
    const where = `${why}.${field} = ${JSON.stringify(value)}`;
    switch (kind) {
      case 'string':
        assert.equal(typeof value, 'string', where);
        break;
      case 'letter':
        assert.match(String(value), /^[A-Za-z]$/, where);
        assert.equal(typeof value, 'string', where);
        break;
      case 'Y/N':
        assert.ok(value === 'Y' || value === 'N', where);
        break;
      case 'number':
        assert.equal(typeof value, 'number', where);
        assert.ok(Number.isFinite(value), where);
        break;
      case 'boolean':
        assert.equal(typeof value, 'boolean', where);
        break;
      case 'date-time':
        assert.equal(typeof value, 'string', where);
        assert.match(value as string, DATE_TIME, where);
        break;
    }
  }
  assert.ok(
    (record['interestRate'] as number) >= 0 && (record['interestRate'] as number) < 1,
    `${why}: interestRate is a fraction`,
  );
}

for (const backend of BACKENDS) {
  describe(`GET /core/accounts 200 (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    before(async () => {
      h = await createHarness(backend);
      token = await h.token(await h.client({ platform: 'accounts-200' }));
    });
    after(() => h?.close());

    it('answers every demo customer’s accounts as documented account records, exactly as the core holds them', async () => {
      let noDateSeen = 0;
      let recordsSeen = 0;
      for (const customer of DEMO_CUSTOMERS) {
        const customerId = uniqueId(customer.customerKey);
        assertSuccess(await postSession(h, { token }, formA(customerId, customer)));
        const data = assertSuccess<Array<Record<string, unknown>>>(
          await getAccounts(h, { token }, customerId),
          customer.customerKey,
        );
        assert.ok(Array.isArray(data));
        assert.deepEqual(data, customer.accounts, `${customer.customerKey}: the core's records, in its order`);
        data.forEach((record, index) => {
          assertAccountRecord(record, `${customer.customerKey}[${index}]`);
          assert.equal(record['customerKey'], customer.customerKey, 'only this customer’s accounts');
          noDateSeen += [record['nextPaymentDate'], record['maturityDate']].filter((value) => value === NO_DATE).length;
          recordsSeen += 1;
        });
      }
      assert.ok(recordsSeen >= 8, `${recordsSeen} records checked`);
      assert.ok(noDateSeen > 0, '0001-01-01T00:00:00 stands for no date');
    });

    it('answers 200 with data [] for a customer of the bank without accounts', async () => {
      assert.equal(EVE.accounts.length, 0);
      const customerId = uniqueId('eve');
      assertSuccess(await postSession(h, { token }, formA(customerId, EVE)));
      const response = await getAccounts(h, { token }, customerId);
      assert.deepEqual(assertSuccess(response), []);
      assert.equal(response.body, '{"name":"Success","className":"Success","message":"Success","data":[],"code":200}');
    });

    it('keeps number types and the records’ order across calls (byte-identical answers)', async () => {
      const customerId = uniqueId('ada');
      assertSuccess(await postSession(h, { token }, formB(customerId, ADA.customerKey)));
      const first = await getAccounts(h, { token }, customerId);
      const second = await getAccounts(h, { token }, customerId);
      assert.equal(second.body, first.body);
      const savings = assertSuccess<Array<Record<string, unknown>>>(first).find((record) => record['type'] === 'S')!;
      assert.equal(savings['interestRate'], 0.0425, 'a fraction, as the core sent it');
      assert.match(first.body, /"originalBalance":100[,}]/, 'a whole number stays a JSON number');
    });

    it('answers a customerId with URL-special characters', async () => {
      const customerId = `${uniqueId('odd')}/&?=#%+"'`;
      assertSuccess(await postSession(h, { token }, formB(customerId)));
      assert.equal(assertSuccess<unknown[]>(await getAccounts(h, { token }, customerId)).length, ADA.accounts.length);
    });

    it('sends the stored delegate reference ID to the core while it has not expired (no new session)', async () => {
      const customerId = uniqueId('stored');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      const before = h.services.simulator!.stats();
      for (let call = 0; call < 3; call += 1) assertSuccess(await getAccounts(h, { token }, customerId));
      const after = h.services.simulator!.stats();
      assert.equal(after.sessionsStarted, before.sessionsStarted, 'no new core session');
      assert.equal(after.accountRequests, before.accountRequests + 3, 'one core call per request');
    });
  });
}
