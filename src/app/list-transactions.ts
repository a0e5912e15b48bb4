/**
 * `GET /core/transactions` (docs/behaviour.md#transactions): one page of an account's
 * transactions, newest first, through the customer's core session (renewed as for
 * accounts). The page cursor carries the filters, the keyset of the last transaction
 * answered and the core's cursor: a page holds only transactions after that keyset, so a
 * page never repeats one, and the core's keyset cursor never skips one when newer
 * transactions arrive between pages.
 */
import type { AssociationKey } from '../domain/association.js';
import { invalidRequest } from '../domain/errors.js';
import {
  compareNewestFirst,
  isAfter,
  type ListingPosition,
  type StatusFilter,
  type TransactionRecord,
} from '../domain/transaction.js';
import { DEFAULT_PAGE_SIZE, resolveFilters, utcDay, type TransactionFilters } from '../domain/transaction-query.js';
import type { Clock } from '../ports/clock.js';
import {
  CoreProtocolError,
  TransactionsNotSupported,
  type CoreCallContext,
  type CoreConnector,
  type TransactionPage,
  type TransactionPageRequest,
} from '../ports/core-connector.js';
import { TransactionCursors, type CursorBinding, type PagePosition } from './transaction-cursors.js';
import { withCoreSession, type CoreSessionDeps } from './with-core-session.js';

export interface TransactionListRequest {
  readonly accountId: string;
  readonly fromDate?: string | undefined;
  readonly toDate?: string | undefined;
  readonly status?: StatusFilter | undefined;
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

export interface TransactionListPage {
  readonly transactions: TransactionRecord[];
  readonly nextCursor: string | null;
}

export class TransactionReader {
  constructor(
    private readonly sessions: CoreSessionDeps,
    private readonly cursors: TransactionCursors,
    private readonly clock: Clock,
  ) {}

  async list(
    key: AssociationKey,
    request: TransactionListRequest,
    callContext: CoreCallContext,
  ): Promise<TransactionListPage> {
    const binding: CursorBinding = { ...key, accountId: request.accountId };
    const start = request.cursor
      ? this.cursors.openPage(binding, request.cursor, request)
      : { filters: filtersOf(request, utcDay(this.clock.now())), after: null, core: undefined };
    const limit = request.limit ?? DEFAULT_PAGE_SIZE;
    const page = await withCoreSession(this.sessions, key, callContext, (core, association, context) =>
      readPage(core, association.delegateReferenceId, request.accountId, start, limit, context),
    );
    const last = page.transactions.at(-1) ?? start.after;
    const nextCursor =
      page.nextCursor === null
        ? null
        : this.cursors.sealPage(binding, {
            filters: start.filters,
            after: last && { bookingDate: last.bookingDate, id: last.id },
            core: page.nextCursor,
          });
    return { transactions: page.transactions, nextCursor };
  }
}

function filtersOf(request: TransactionListRequest, today: string): TransactionFilters {
  const resolved = resolveFilters(request, today);
  if ('problems' in resolved) throw invalidRequest('invalid transactions query', { problems: resolved.problems });
  return resolved.filters;
}

type Start = Omit<PagePosition, 'core'> & { readonly core: string | undefined };

/**
 * One page of the core, held to what was asked: the account, the status filter, at most
 * `limit` transactions, newest first. Transactions at or before the last one already
 * answered are left out (a core repeating one is not passed on).
 */
async function readPage(
  core: CoreConnector,
  delegateReferenceId: string,
  accountId: string,
  start: Start,
  limit: number,
  context: CoreCallContext,
): Promise<{ transactions: TransactionRecord[]; nextCursor: string | null }> {
  const page = await transactionPage(
    core,
    delegateReferenceId,
    { accountId, ...start.filters, limit, cursor: start.core },
    context,
  );
  checkPage(page.transactions, accountId, start.filters.status, limit);
  const after = start.after;
  const transactions = after ? page.transactions.filter((record) => isAfter(record, after)) : [...page.transactions];
  return { transactions, nextCursor: page.nextCursor };
}

/** A page from `core`; a core without the call does not offer transactions (501). */
export function transactionPage(
  core: CoreConnector,
  delegateReferenceId: string,
  request: TransactionPageRequest,
  context: CoreCallContext,
): Promise<TransactionPage> {
  if (!core.listTransactions)
    return Promise.reject(new TransactionsNotSupported('the connector has no transactions call'));
  return core.listTransactions(delegateReferenceId, request, context);
}

/**
 * Throws a {@link CoreProtocolError} (502) when the core answered another account's
 * transactions, another status than asked, more than `limit`, or out of order. The message
 * counts; it never names an id or an amount.
 */
export function checkPage(
  records: readonly TransactionRecord[],
  accountId: string,
  status: StatusFilter,
  limit: number,
): void {
  if (records.length > limit)
    throw new CoreProtocolError(`the core answered ${records.length} transactions to a page of ${limit}`, true);
  let previous: ListingPosition | undefined;
  let foreign = 0;
  let unasked = 0;
  for (const record of records) {
    if (record.accountId !== accountId) foreign += 1;
    if (status !== 'both' && record.status !== status) unasked += 1;
    if (previous && compareNewestFirst(previous, record) >= 0)
      throw new CoreProtocolError(
        'the core answered transactions out of order (newest first, then id descending)',
        true,
      );
    previous = record;
  }
  if (foreign > 0)
    throw new CoreProtocolError(
      `the core answered ${foreign} of ${records.length} transactions of another account`,
      true,
    );
  if (unasked > 0)
    throw new CoreProtocolError(`the core answered ${unasked} transactions of a status not asked for`, true);
}
