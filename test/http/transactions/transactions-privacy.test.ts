/**
 * Descriptions and amounts are never logged (docs/behaviour.md#transaction-sync): a page, a
 * sync, a refused cursor and a core answering a foreign account's transactions, logged at
 * `trace` through the production logger, leave no description, amount or delegate reference
 * ID in the captured text; the audit rows name the customer only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../../src/adapters/logging/logger.js';
import type { TransactionRecord } from '../../../src/domain/transaction.js';
import { pgliteBackend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { assertSuccess } from '../gateway/gateway-requests.js';
import {
  CHECKING,
  getTransactions,
  registeredCustomer,
  syncTransactions,
  type Page,
  type SyncData,
} from './transaction-requests.js';

describe('transactions leave no amount or description in the logs', () => {
  let h: Harness;
  const lines: string[] = [];
  before(async () => {
    const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
    h = await createHarness(pgliteBackend, { logger, env: { LOG_LEVEL: 'trace' } });
  });
  after(() => h?.close());

  it('after a page, a sync and a refused cursor', async () => {
    const ada = await registeredCustomer(h, 'tx-privacy');
    const page = assertSuccess<Page>(await getTransactions(h, ada, { accountId: CHECKING, limit: 20 }));
    const sync = assertSuccess<SyncData>(await syncTransactions(h, ada, { accountId: CHECKING, count: 20 }));
    assert.equal(
      (await getTransactions(h, ada, { accountId: CHECKING, cursor: `${page.nextCursor!}x` })).statusCode,
      400,
    );
    await h.services.audit.drain();
    const records: TransactionRecord[] = [...page.transactions, ...sync.added];
    const text = lines.join('\n');
    assert.ok(text.includes('/core/transactions'), 'the requests were logged');
    for (const record of records) {
      if (record.description.length > 3)
        assert.ok(!text.includes(record.description), `description ${record.description} logged`);
      assert.ok(!text.includes(`"amount"`), 'an amount field logged');
    }
    const audit = await h.services.database.query<Record<string, unknown>>(
      "select * from audit_log where event_type like 'transactions.%'",
    );
    assert.ok(audit.length >= 3);
    const auditText = JSON.stringify(audit);
    for (const record of records) if (record.description.length > 3) assert.ok(!auditText.includes(record.description));
    assert.ok(!auditText.includes(CHECKING), 'no account id in the audit rows');
  });
});
