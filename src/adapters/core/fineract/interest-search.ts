/**
 * This year's interest postings of a deposit type 100 savings account, read through Fineract's
 * paged, date-filtered transaction search (`GET /v1/savingsaccounts/{id}/transactions/search`,
 * docs/cores/fineract.md#calls) rather than the unpaged `?associations=transactions`, whose
 * answer for a long history exceeds the answer size limit. The answer is Spring's `Page` as
 * Fineract's Gson writes it: `{ content, pageable, total }`.
 *
 * The search is skipped when the account's own answer shows it cannot change the sum
 * ({@link YearInterest}): no interest posted ever, or the same account summary as a search made
 * less than the session TTL ago.
 */
import type { Semaphore } from 'async-mutex';
import { LRUCache } from 'lru-cache';
import { isPlainObject } from '../../../domain/json.js';
import { CoreProtocolError, type CoreCallContext } from '../../../ports/core-connector.js';
import { sumInterestPostings } from './account-mapping.js';
import { listField, MalformedAnswer, numberField, object, optionalNumber } from './answer-reader.js';
import { calls } from './fineract-calls.js';
import type { FineractRequest } from './fineract-http.js';
import type { FineractReader } from './fineract-reader.js';
import { readAnswer } from './fineract-reader.js';

/** Rows asked per page: a page of interest postings stays far below the answer size limit. */
const INTEREST_PAGE_SIZE = 200;
/**
 * Pages one account's year may take (10,000 postings): daily posting is 366 a year, so more
 * means an answer that is not what it claims, and the read fails rather than fan out further.
 */
const MAX_INTEREST_PAGES = 50;

interface SearchPage {
  readonly total: number;
  readonly interest: number;
  readonly rows: number;
}

/** A page of the transaction search, `{ content, total }`: at most `pageSize` rows and a count. */
export function readSearchPage(
  json: unknown,
  pageSize: number,
): { readonly total: number; readonly content: unknown[] } {
  const page = object(json, '');
  const total = numberField(page, 'total', '');
  if (!Number.isSafeInteger(total) || total < 0)
    throw new MalformedAnswer('total', 'expected a count, a non-negative integer');
  const content = listField(page, 'content', '');
  if (content.length > pageSize)
    throw new MalformedAnswer('content', `expected at most ${pageSize} rows, the page size asked`);
  return { total, content };
}

function readPage(json: unknown, year: number): SearchPage {
  const { total, content } = readSearchPage(json, INTEREST_PAGE_SIZE);
  return { total, interest: sumInterestPostings(content, 'content', year), rows: content.length };
}

/**
 * Sum of `year`'s non-reversed interest postings of savings account `accountId`: the first page
 * tells the total, the other pages are asked together through the request's call `gate`, each
 * call with its own deadline.
 */
async function interestPostedBySearch(
  reader: FineractReader,
  accountId: string,
  year: number,
  context: CoreCallContext,
  gate: Semaphore,
): Promise<number> {
  const fetchPage = async (index: number): Promise<SearchPage> => {
    const request = calls.savingsInterestPostings(accountId, year, index, INTEREST_PAGE_SIZE);
    const json = await reader.required(request, context, gate);
    return readAnswer(request, () => readPage(json, year));
  };
  const first = await fetchPage(0);
  const pages = Math.ceil(first.total / INTEREST_PAGE_SIZE);
  if (pages > MAX_INTEREST_PAGES)
    throw new CoreProtocolError(
      `a Fineract savings account has more than ${MAX_INTEREST_PAGES * INTEREST_PAGE_SIZE} interest postings this year, the limit of one read`,
      true,
    );
  const rest = await Promise.all(Array.from({ length: Math.max(0, pages - 1) }, (_, index) => fetchPage(index + 1)));
  const all = [first, ...rest];
  const rows = all.reduce((sum, page) => sum + page.rows, 0);
  // A posting made between two page reads shifts the pages: the sum would miss or repeat a row.
  if (rows !== first.total)
    throw new CoreProtocolError(
      `the Fineract transaction search answered ${rows} rows for a total of ${first.total}: the history changed during the read`,
      true,
    );
  return all.reduce((sum, page) => sum + page.interest, 0);
}

/** Savings accounts whose year's interest one connector remembers; the least recently read go first. */
const REMEMBERED_ACCOUNTS = 10_000;

interface Remembered {
  /** The year, the owner and the account's `summary` the sum was searched for. */
  readonly state: string;
  readonly interest: number;
  /** When it was searched, on coregate's clock (ms). */
  readonly at: number;
}

/**
 * This year's interest postings of deposit type 100 accounts, searched only when the account's
 * `GET /v1/savingsaccounts/{id}` answer (already read for the record) leaves them open
 * (docs/cores/fineract.md#calls):
 * - `summary.totalInterestPosted` absent or 0: Fineract sums every non-reversed interest posting
 *   into it and writes nothing when the sum is 0, so there is none this year either;
 * - the same year and `summary` as a search at most `maxAgeMs` ago: a posting or a
 *   reversal since changes `totalInterestPosted` and the balance, so an unchanged summary means
 *   the same postings. The age bounds what an edit that leaves every total as it was could hide.
 * Sums are kept in memory only, never logged or stored.
 */
export class YearInterest {
  private readonly remembered = new LRUCache<string, Remembered>({ max: REMEMBERED_ACCOUNTS });

  constructor(
    private readonly reader: FineractReader,
    private readonly maxAgeMs: number,
  ) {}

  /**
   * Sum of `now`'s year's non-reversed interest postings of `accountId`, whose answer to `request`
   * is `details`. An answer without a `summary` or about another client's account searches
   * nothing: the record refuses it.
   */
  async posted(
    accountId: string,
    details: unknown,
    request: FineractRequest,
    mapping: { readonly clientId: string; readonly now: Date },
    context: CoreCallContext,
    gate: Semaphore,
  ): Promise<number> {
    const year = mapping.now.getUTCFullYear();
    const state = readAnswer(request, () => searchState(details, mapping.clientId, year));
    if (state === undefined) return 0;
    const known = this.remembered.get(accountId);
    const at = mapping.now.getTime();
    if (known?.state === state && at - known.at < this.maxAgeMs) return known.interest;
    const interest = await interestPostedBySearch(this.reader, accountId, year, context, gate);
    this.remembered.set(accountId, { state, interest, at });
    return interest;
  }
}

/** What a remembered sum must match, or `undefined` when the answer leaves nothing to search. */
function searchState(details: unknown, clientId: string, year: number): string | undefined {
  if (!isPlainObject(details) || !isPlainObject(details.summary) || String(details.clientId) !== clientId)
    return undefined;
  if ((optionalNumber(details.summary, 'totalInterestPosted', 'summary') ?? 0) === 0) return undefined;
  return JSON.stringify([year, details.summary]);
}
