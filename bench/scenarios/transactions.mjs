/**
 * 2d. Transactions beside the accounts read, on one coregate, in rounds taken in turn (CPU per
 * request): one page of 100 transactions (`GET /core/transactions` at its defaults, on the demo
 * customer's checking account, over 400 transactions in 90 days) against the accounts read;
 * then a sync of that unchanged account (`GET /core/transactions/sync` with its cursor: the whole
 * 90-day window read from the core and compared, nothing written) against the page read. Run by
 * `gateway.mjs`, on the primary storage only (the sync state is in its database).
 */
import { DEMO_CUSTOMERS } from '../../dist/src/fakes/core-simulator/demo-data.js';
import { CheckFailed } from '../lib/checks.mjs';
import { measurePair, roundsNote } from '../lib/measure.mjs';
import { prepareHotCustomer, HOT_CUSTOMER_ID } from './accounts.mjs';

export const name = 'transactions';

/** A page of 100 transactions costs at most this many times the accounts read's CPU. */
export const MAX_PAGE_CPU_RATIO = 1.5;
/** A sync of an unchanged account costs at most the page read's CPU. */
export const MAX_SYNC_CPU_RATIO = 1;

export const onStorage = (ctx, kind) => kind === ctx.primaryStorage;

const ACCOUNT_ID = DEMO_CUSTOMERS[0].accounts.find((account) => account.type === 'D').id;

async function getData(url, headers, what) {
  const response = await fetch(url, { headers });
  const json = await response.json();
  if (response.status !== 200) throw new CheckFailed(`${what}: status ${response.status}, ${JSON.stringify(json)}`);
  return json.data;
}

/**
 * Registers the hot customer, checks a page of 100 and a first sync (then one of the unchanged
 * account): the accounts, page and unchanged-sync loads (also what `lib/profiling.mjs` profiles).
 */
export async function prepareTransactions(ctx, coregate, accessToken) {
  const accounts = await prepareHotCustomer(ctx, coregate, accessToken);
  const headers = accounts.headers;
  const query = `customerId=${HOT_CUSTOMER_ID}&accountId=${encodeURIComponent(ACCOUNT_ID)}`;
  const pagePath = `/core/transactions?${query}`;
  const page = await getData(`${coregate.url}${pagePath}`, headers, `coregate GET ${pagePath}`);
  if (page.transactions.length !== 100 || typeof page.nextCursor !== 'string')
    throw new CheckFailed(`coregate GET ${pagePath}: expected a full page of 100 and a next cursor`);
  // The first sync adds the window; its cursor then names an unchanged account.
  let sync = await getData(`${coregate.url}/core/transactions/sync?${query}&count=500`, headers, 'the first sync');
  while (sync.hasMore)
    sync = await getData(
      `${coregate.url}/core/transactions/sync?${query}&count=500&cursor=${encodeURIComponent(sync.nextCursor)}`,
      headers,
      'the first sync',
    );
  const syncPath = `/core/transactions/sync?${query}&cursor=${encodeURIComponent(sync.nextCursor)}`;
  const unchanged = await getData(`${coregate.url}${syncPath}`, headers, 'a sync of the unchanged account');
  if (unchanged.added.length + unchanged.modified.length + unchanged.removed.length !== 0)
    throw new CheckFailed('a sync of the unchanged account answered changes');
  return {
    accounts,
    page: { origin: coregate.url, path: pagePath, headers },
    sync: { origin: coregate.url, path: syncPath, headers },
  };
}

export async function measureCoregate(ctx, { coregate, accessToken, kind, peers }) {
  const { accounts, page: pageSpec, sync: syncSpec } = await prepareTransactions(ctx, coregate, accessToken);
  ctx.log(`transactions: coregate on ${kind} answers a page of 100 and an unchanged sync; loading them in turns`);

  const pagePair = await measurePair(ctx, {
    subject: { server: coregate, peers, spec: pageSpec },
    baseline: { server: coregate, peers, spec: accounts },
  });
  const pageRow = ctx.results.addRow({
    scenario: 'transactions',
    variant: `${kind}, one page of 100 transactions`,
    subject: 'coregate',
    measurement: pagePair.subject,
    notes: [roundsNote(pagePair)],
  });
  const accountsRow = ctx.results.addRow({
    scenario: 'transactions',
    variant: `${kind}, accounts read, in turns with the page`,
    subject: 'coregate',
    baseline: true,
    measurement: pagePair.baseline,
  });
  ctx.results.compareCpu(pageRow, accountsRow, {
    name: `transactions CPU µs/req, page of 100 vs accounts read (${kind})`,
    max: MAX_PAGE_CPU_RATIO,
    label: 'of the accounts read',
  });

  const syncPair = await measurePair(ctx, {
    subject: { server: coregate, peers, spec: syncSpec },
    baseline: { server: coregate, peers, spec: pageSpec },
  });
  const syncRow = ctx.results.addRow({
    scenario: 'transactions',
    variant: `${kind}, sync of an unchanged account`,
    subject: 'coregate',
    measurement: syncPair.subject,
    notes: [roundsNote(syncPair)],
  });
  const pageAgainRow = ctx.results.addRow({
    scenario: 'transactions',
    variant: `${kind}, page of 100, in turns with the sync`,
    subject: 'coregate',
    baseline: true,
    measurement: syncPair.baseline,
  });
  ctx.results.compareCpu(syncRow, pageAgainRow, {
    name: `transactions CPU µs/req, unchanged sync vs page of 100 (${kind})`,
    max: MAX_SYNC_CPU_RATIO,
    label: 'of the page read',
  });
}
