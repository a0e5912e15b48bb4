/**
 * `cg.transactions` against a real coregate listening on a socket: `list()` iterates every
 * page of an account (the same transactions, in order, as one large page), and `sync()`
 * adds the window, then answers nothing for an unchanged account; a used cursor is a
 * `CoregateError` with `invalid_cursor`.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CoregateClient, CoregateError, type TransactionRecord } from '@coregate/client';
import { QUICKEST_BACKEND } from '../support/backends.js';
import { createHarness, type Harness } from '../support/harness.js';

describe('@coregate/client transactions', { skip: QUICKEST_BACKEND.skip, timeout: 60_000 }, () => {
  let harness: Harness;
  let cg: CoregateClient;
  let accountId: string;

  before(async () => {
    harness = await createHarness(QUICKEST_BACKEND);
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(harness.app.server.address() as AddressInfo).port}`;
    const credentials = await harness.client({ platform: 'sdk-tx' });
    cg = new CoregateClient({ baseUrl, clientId: credentials.id, clientSecret: credentials.secret });
    await cg.registerCustomer({ customerId: 'sdk-tx-ada', customer: { customerKey: 'C-1001' } });
    accountId = (await cg.listAccounts('sdk-tx-ada')).find((account) => account.type === 'D')!.id;
  });

  after(() => harness?.close());

  it('iterates every page of an account', async () => {
    const paged: TransactionRecord[] = [];
    let pages = 0;
    for await (const page of cg.transactions.list('sdk-tx-ada', accountId, { limit: 75 })) {
      pages += 1;
      assert.ok(page.transactions.length <= 75);
      paged.push(...page.transactions);
    }
    const whole: TransactionRecord[] = [];
    for await (const page of cg.transactions.list('sdk-tx-ada', accountId, { limit: 500 }))
      whole.push(...page.transactions);
    assert.ok(pages >= 6, `${pages} pages`);
    assert.deepEqual(paged, whole);
    assert.ok(whole.length >= 400);
  });

  it('syncs: the window added, then nothing; a used cursor is invalid_cursor', async () => {
    let added = 0;
    let sync = await cg.transactions.sync('sdk-tx-ada', accountId, { count: 500 });
    added += sync.added.length;
    while (sync.hasMore) {
      sync = await cg.transactions.sync('sdk-tx-ada', accountId, { cursor: sync.nextCursor, count: 500 });
      added += sync.added.length;
    }
    assert.ok(added >= 400);
    const unchanged = await cg.transactions.sync('sdk-tx-ada', accountId, { cursor: sync.nextCursor });
    assert.deepEqual([unchanged.added, unchanged.modified, unchanged.removed, unchanged.hasMore], [[], [], [], false]);
    const restarted = await cg.transactions.sync('sdk-tx-ada', accountId, { count: 1 });
    await cg.transactions.sync('sdk-tx-ada', accountId, { cursor: restarted.nextCursor, count: 1 });
    await assert.rejects(
      cg.transactions.sync('sdk-tx-ada', accountId, { cursor: restarted.nextCursor }),
      (error: unknown) =>
        error instanceof CoregateError && error.status === 400 && error.data['reason'] === 'invalid_cursor',
    );
  });
});
