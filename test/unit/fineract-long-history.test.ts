/**
 * A savings account with 50,000 transactions through the Fineract connector, on every release
 * the stand-in imitates (docs/cores/fineract.md#calls): the account is read without its
 * transactions, and the year's interest postings come from the paged, date-filtered
 * transaction search, page by page, within the answer size limit.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { FineractCoreConnector } from '../../src/adapters/core/fineract/fineract-core-connector.js';
import { FINERACT_DEFAULTS } from '../../src/domain/institution.js';
import {
  startFineractStandIn,
  STAND_IN_CREDENTIALS,
  type RunningFineractStandIn,
} from '../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import { LONG_HISTORY_TRANSACTIONS, longHistoryClient } from '../../src/fakes/fineract-stand-in/long-history.js';
import { FINERACT_RELEASES } from '../../src/fakes/fineract-stand-in/releases.js';
import { FakeClock } from '../support/fake-clock.js';

const ANSWER_LIMIT_BYTES = 8 * 1024 * 1024;
const client = longHistoryClient(2026);
const account = client.savings[0]!;
/** This year's non-reversed interest postings, summed from the data itself. */
const expectedInterest = account.transactions
  .filter((t) => t.kind === 'interestPosting' && !t.reversed && t.date[0] === 2026)
  .reduce((sum, t) => sum + t.amount, 0);
const searchPath = (page: number) =>
  `/fineract-provider/api/v1/savingsaccounts/71/transactions/search?fromDate=2026-01-01&toDate=2026-12-31` +
  `&dateFormat=yyyy-MM-dd&locale=en&types=3&offset=${page}&limit=200`;
const authorization = `Basic ${Buffer.from(`${STAND_IN_CREDENTIALS.username}:${STAND_IN_CREDENTIALS.password}`).toString('base64')}`;
const sealer = new AesGcmSealer([encryptionKey(randomBytes(32))]);

describe('a savings account with 50,000 transactions', () => {
  const standIns: RunningFineractStandIn[] = [];
  const connectors: FineractCoreConnector[] = [];
  before(async () => {
    for (const release of FINERACT_RELEASES) {
      const standIn = await startFineractStandIn({ release });
      standIn.setClient(client.id, client);
      standIns.push(standIn);
    }
  });
  after(async () => {
    await Promise.all(connectors.map((made) => made.close()));
    await Promise.all(standIns.map((standIn) => standIn.close()));
  });

  function connector(standIn: RunningFineractStandIn, now: string): FineractCoreConnector {
    const made = new FineractCoreConnector({
      ...FINERACT_DEFAULTS,
      baseUrl: standIn.url,
      credentials: STAND_IN_CREDENTIALS,
      institution: 'bank-one',
      timeoutMs: 10_000,
      clock: new FakeClock(now),
      sealer,
    });
    connectors.push(made);
    return made;
  }

  it('is over the answer size limit when listed unpaged', async () => {
    const standIn = standIns[0]!;
    const answer = await fetch(`${standIn.url}/api/v1/savingsaccounts/71?associations=transactions`, {
      headers: { authorization, 'fineract-platform-tenantid': standIn.tenant },
    });
    assert.equal(account.transactions.length, LONG_HISTORY_TRANSACTIONS);
    assert.ok((await answer.arrayBuffer()).byteLength > ANSWER_LIMIT_BYTES);
  });

  for (const [index, release] of FINERACT_RELEASES.entries()) {
    it(`reads correctly on Fineract ${release}, the year's interest from the paged search`, async () => {
      const standIn = standIns[index]!;
      const core = connector(standIn, '2026-12-31T12:00:00Z');
      const session = await core.startSession({ kind: 'customerKey', customerKey: '7' }, { requestId: 'r-1' });
      standIn.requests.length = 0;
      const [record] = await core.listAccounts(session.delegateReferenceId, { requestId: 'r-2' });
      assert.equal(record?.id, 'savings-71');
      assert.ok(expectedInterest > 0);
      assert.equal(record.yearToDateInterest, expectedInterest);
      assert.equal(record.paidYearToDateInterest, expectedInterest);
      assert.equal(record.currentBalance, 123_456.78);
      // 365 postings this year: two pages of 200.
      assert.deepEqual(standIn.requests.map((request) => `${request.method} ${request.path}`).sort(), [
        'GET /fineract-provider/api/v1/clients/7/accounts',
        'GET /fineract-provider/api/v1/savingsaccounts/71',
        `GET ${searchPath(0)}`,
        `GET ${searchPath(1)}`,
      ]);
    });
  }

  it('is searched as Fineract searches: offset a page number, the newest first, a bad date refused', async () => {
    const standIn = standIns[1]!;
    const get = async (query: string) => {
      const answer = await fetch(`${standIn.url}/api/v1/savingsaccounts/71/transactions/search?${query}`, {
        headers: { authorization, 'fineract-platform-tenantid': standIn.tenant },
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
    };
    const page = await get('types=3&fromDate=01 12 2026&toDate=31 12 2026&dateFormat=dd MM yyyy&offset=1&limit=10');
    assert.equal(page.status, 200);
    assert.equal(page.body.total, 31);
    const content = page.body.content as { date: number[]; transactionType: { id: number } }[];
    assert.deepEqual(
      content.map((row) => row.date[2]),
      [21, 20, 19, 18, 17, 16, 15, 14, 13, 12],
    );
    assert.ok(content.every((row) => row.transactionType.id === 3));
    const refused = await get('fromDate=2026-13-01');
    assert.equal(refused.status, 400);
    assert.equal(
      (refused.body.errors as { userMessageGlobalisationCode: string }[])[0]?.userMessageGlobalisationCode,
      'validation.msg.invalid.date.pattern',
    );
    assert.equal((await get('limit=0')).status, 500);
    assert.deepEqual((await get('types=99')).body.total, 0);
  });

  it('asks one page, the year having no posting yet, on the first day of the next year', async () => {
    const standIn = standIns[2]!;
    const core = connector(standIn, '2027-01-01T00:30:00Z');
    const session = await core.startSession({ kind: 'customerKey', customerKey: '7' }, { requestId: 'r-3' });
    standIn.requests.length = 0;
    const [record] = await core.listAccounts(session.delegateReferenceId, { requestId: 'r-4' });
    assert.equal(record?.yearToDateInterest, 0);
    assert.equal(standIn.requests.filter((request) => request.path.includes('/transactions/search')).length, 1);
  });
});
