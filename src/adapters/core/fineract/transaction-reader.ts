/**
 * One page of an account's transactions from Fineract (docs/cores/fineract.md#transactions):
 * which account it is (one of the session's client's active accounts, else
 * {@link AccountNotFound}), where its transactions come from (a savings or current account's
 * from the paged, date-filtered search; a fixed or recurring deposit's and a loan's from the
 * account's own unpaged answer), and the keyset paging coregate expects of a core.
 *
 * Fineract's search pages by offset, newest value date first; the listing order is by day and
 * then by record id. So a page is cut only at a day that has been read whole: the search is read
 * from the cursor's day down, page after page, until more than `limit` transactions of whole days
 * after the cursor's keyset are in hand (or the window is read out). A transaction booked between
 * two search pages shifts the later pages down, so a row may come twice (kept once), never be
 * skipped. The core cursor is the keyset of the page's last record: its day and id.
 */
import type { Semaphore } from 'async-mutex';
import {
  compareNewestFirst,
  isAfter,
  type ListingPosition,
  type TransactionRecord,
} from '../../../domain/transaction.js';
import {
  AccountNotFound,
  CoreProtocolError,
  SessionRejected,
  type CoreCallContext,
  type TransactionPage,
  type TransactionPageRequest,
} from '../../../ports/core-connector.js';
import { readClientAccounts, type ListedAccount } from './account-mapping.js';
import { dateField, idField, listField, MalformedAnswer, object } from './answer-reader.js';
import { readSearchPage } from './interest-search.js';
import { calls } from './fineract-calls.js';
import type { FineractRequest } from './fineract-http.js';
import { readAnswer, type FineractReader } from './fineract-reader.js';
import {
  day,
  loanTransaction,
  SAVINGS_SEARCH_TYPES,
  savingsTransaction,
  type TransactionMappingContext,
} from './transaction-mapping.js';

/** Rows asked per search page. */
const SEARCH_PAGE_SIZE = 200;
/**
 * Search pages one listing page may read (10,000 rows): more means a single day holding more
 * transactions than that, and the read fails naming the limit rather than fan out further.
 */
const MAX_SEARCH_PAGES = 50;
const ACCOUNT_ID = /^(savings|loan)-([1-9][0-9]{0,17})$/;
const CORE_CURSOR = /^(\d{4}-\d{2}-\d{2})~([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export interface TransactionSession {
  readonly clientId: string;
  readonly tenant: string;
}

/** Rows of one read, in Fineract's order, and whether the window holds no more. */
interface Batch {
  readonly records: readonly TransactionRecord[];
  /** The oldest value day among the rows read so far; days after it are whole. */
  readonly oldest: string | undefined;
  readonly exhausted: boolean;
}

function writeCursor(position: ListingPosition): string {
  return `${position.bookingDate}~${position.id}`;
}

function readCursor(cursor: string): ListingPosition {
  const match = CORE_CURSOR.exec(cursor);
  if (!match) throw new CoreProtocolError('not a cursor of the Fineract connector', true);
  return { bookingDate: match[1]!, id: match[2]! };
}

/** What the listing keeps of the rows read: the window's, after the keyset, of whole days. */
function kept(
  records: Iterable<TransactionRecord>,
  request: TransactionPageRequest,
  toDate: string,
  after: ListingPosition | undefined,
  wholeAfter: string | undefined,
): TransactionRecord[] {
  const out: TransactionRecord[] = [];
  for (const record of records) {
    const booked = record.bookingDate!;
    if (booked < request.fromDate || booked > toDate) continue;
    if (wholeAfter !== undefined && booked <= wholeAfter) continue;
    if (after && !isAfter(record, after)) continue;
    out.push(record);
  }
  return out;
}

export class FineractTransactionReader {
  constructor(private readonly reader: FineractReader) {}

  async page(
    session: TransactionSession,
    request: TransactionPageRequest,
    context: CoreCallContext,
    gate: Semaphore,
  ): Promise<TransactionPage> {
    const account = await this.account(session, request.accountId, context, gate);
    const after = request.cursor === undefined ? undefined : readCursor(request.cursor);
    // Fineract has no pending transactions: every one it lists is booked.
    if (request.status === 'pending') return { transactions: [], nextCursor: null };
    const toDate = after && after.bookingDate! < request.toDate ? after.bookingDate! : request.toDate;
    const mapping: TransactionMappingContext = { accountId: request.accountId, tenant: session.tenant };
    const seen = new Map<string, TransactionRecord>();
    let batch: Batch = { records: [], oldest: undefined, exhausted: false };
    for (let index = 0; !batch.exhausted; index += 1) {
      if (index >= MAX_SEARCH_PAGES)
        throw new CoreProtocolError(
          `a Fineract account has more than ${MAX_SEARCH_PAGES * SEARCH_PAGE_SIZE} transactions on one day, the limit of one read`,
          true,
        );
      batch = await this.batch(account, session, { ...request, toDate }, index, batch.oldest, mapping, context, gate);
      for (const record of batch.records) seen.set(record.id, record);
      if (!batch.exhausted && kept(seen.values(), request, toDate, after, batch.oldest).length > request.limit) break;
    }
    const candidates = kept(seen.values(), request, toDate, after, batch.exhausted ? undefined : batch.oldest);
    candidates.sort(compareNewestFirst);
    const transactions = candidates.slice(0, request.limit);
    const last = transactions.at(-1);
    return { transactions, nextCursor: candidates.length > request.limit && last ? writeCursor(last) : null };
  }

  /** The account `accountId` names among the session client's active accounts, or {@link AccountNotFound}. */
  private async account(
    session: TransactionSession,
    accountId: string,
    context: CoreCallContext,
    gate: Semaphore,
  ): Promise<{ readonly kind: 'savings' | 'loan'; readonly listed: ListedAccount }> {
    const match = ACCOUNT_ID.exec(accountId);
    if (!match) throw new AccountNotFound();
    const request = calls.accounts(session.clientId);
    const answer = await this.reader.send(request, context, gate);
    if (answer.status === 404) throw new SessionRejected();
    const accounts = readAnswer(request, () => readClientAccounts(this.reader.ok(answer, request, context)));
    const kind = match[1] as 'savings' | 'loan';
    const listed = (kind === 'savings' ? accounts.savings : accounts.loans).find(
      (account) => account.id === match[2] && account.active,
    );
    if (!listed) throw new AccountNotFound();
    return { kind, listed };
  }

  /** Search page `index` of a deposit type 100 account; the whole list of any other account (read once, at index 0). */
  private async batch(
    account: { readonly kind: 'savings' | 'loan'; readonly listed: ListedAccount },
    session: TransactionSession,
    window: { readonly fromDate: string; readonly toDate: string },
    index: number,
    previousOldest: string | undefined,
    mapping: TransactionMappingContext,
    context: CoreCallContext,
    gate: Semaphore,
  ): Promise<Batch> {
    const id = account.listed.id;
    if (account.kind === 'savings' && (account.listed.depositType ?? 100) === 100) {
      const request = calls.savingsTransactions(
        id,
        { fromDate: window.fromDate, toDate: window.toDate, types: SAVINGS_SEARCH_TYPES },
        index,
        SEARCH_PAGE_SIZE,
      );
      const json = await this.reader.required(request, context, gate);
      return readAnswer(request, () => {
        const { total, content } = readSearchPage(json, SEARCH_PAGE_SIZE);
        const read = rows(content, 'content', previousOldest, (row, path) => savingsTransaction(row, path, mapping));
        return {
          ...read,
          exhausted: content.length < SEARCH_PAGE_SIZE || (index + 1) * SEARCH_PAGE_SIZE >= total,
        };
      });
    }
    const request: FineractRequest =
      account.kind === 'loan'
        ? calls.loanTransactions(id)
        : account.listed.depositType === 200
          ? calls.fixedDeposit(id)
          : calls.recurringDeposit(id);
    const json = await this.reader.required(request, context, gate);
    return readAnswer(request, () => {
      const answer = object(json, '');
      // The client's list named the account: an answer about another client's is not passed on.
      if (idField(answer, 'clientId', '') !== session.clientId)
        throw new CoreProtocolError(
          `Fineract answered ${request.template} for another client than the session's`,
          true,
        );
      const map =
        account.kind === 'loan'
          ? (row: unknown, path: string) => loanTransaction(row, path, mapping)
          : (row: unknown, path: string) => savingsTransaction(row, path, mapping);
      const records: TransactionRecord[] = [];
      listField(answer, 'transactions', '').forEach((row, at) => {
        const record = map(row, `transactions[${at}]`);
        if (record) records.push(record);
      });
      return { records, oldest: undefined, exhausted: true };
    });
  }
}

/**
 * A search page's rows mapped, checking Fineract's order: value days never rise from one row to
 * the next, across pages too (a page out of order could hide a day's rows behind the cut).
 */
function rows(
  content: readonly unknown[],
  path: string,
  previousOldest: string | undefined,
  map: (row: unknown, path: string) => TransactionRecord | undefined,
): Omit<Batch, 'exhausted'> {
  let oldest = previousOldest;
  const records: TransactionRecord[] = [];
  content.forEach((row, index) => {
    const rowPath = `${path}[${index}]`;
    const valued = day(dateField(object(row, rowPath), 'date', rowPath));
    if (oldest !== undefined && valued > oldest)
      throw new MalformedAnswer(rowPath, 'out of order: the search answers the newest value date first');
    oldest = valued;
    const record = map(row, rowPath);
    if (record) records.push(record);
  });
  return { records, oldest };
}
