/**
 * `cg.transactions`: an account's transactions (`GET /core/transactions`) as an async
 * iterator over pages, and incremental sync (`GET /core/transactions/sync`), Plaid-style.
 */
import type { CallOptions } from './client.js';

/** One movement of an account. */
export interface TransactionRecord {
  /** Stable for the transaction's life; a pending one and the booked one that replaces it have different ids. */
  readonly id: string;
  /** The account's `id` in `listAccounts`. */
  readonly accountId: string;
  readonly status: 'booked' | 'pending';
  /** `YYYY-MM-DD`; null while pending. */
  readonly bookingDate: string | null;
  /** `YYYY-MM-DD`. */
  readonly valueDate: string;
  /** Positive; the direction is `creditDebit`. */
  readonly amount: number;
  /** `C`: money in; `D`: money out. */
  readonly creditDebit: 'C' | 'D';
  /** ISO 4217. */
  readonly currency: string;
  /** May be empty. */
  readonly description: string;
  readonly type:
    'deposit' | 'withdrawal' | 'interest' | 'fee' | 'transfer' | 'payment' | 'disbursement' | 'repayment' | 'other';
  /** The balance after it, where the core knows it. */
  readonly runningBalance: number | null;
  /** A reversed transaction stays listed with `true`. */
  readonly reversed: boolean;
}

/** Filters of a listing; a window of at most 731 days, the last 90 by default. */
export interface TransactionFilters {
  /** `YYYY-MM-DD`; 90 days before `toDate` when absent. */
  readonly fromDate?: string;
  /** `YYYY-MM-DD`; today (UTC) when absent. */
  readonly toDate?: string;
  /** `both` when absent. */
  readonly status?: 'booked' | 'pending' | 'both';
  /** Page size, 1 to 500; 100 when absent. */
  readonly limit?: number;
}

/** One page of a listing, newest first. */
export interface TransactionPage {
  readonly transactions: TransactionRecord[];
  /** null on the last page. */
  readonly nextCursor: string | null;
}

/** What changed since the cursor (or, without one, the whole 90-day window as `added`). */
export interface TransactionSync {
  readonly added: TransactionRecord[];
  readonly modified: TransactionRecord[];
  readonly removed: { readonly id: string }[];
  /** Keep it for the next sync. */
  readonly nextCursor: string;
  /** More changes wait: sync again at once with `nextCursor`. */
  readonly hasMore: boolean;
}

export interface SyncOptions {
  /** The `nextCursor` of the previous sync; none for the first (or to start again after `invalid_cursor`). */
  readonly cursor?: string;
  /** At most this many changes, 1 to 500; 100 when absent. */
  readonly count?: number;
}

type Get = <T>(path: string, options: CallOptions) => Promise<T>;

function query(parameters: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) search.set(name, String(value));
  return search.toString();
}

export class Transactions {
  readonly #get: Get;

  /** @internal Made by `CoregateClient`. */
  constructor(get: Get) {
    this.#get = get;
  }

  /**
   * Every page of an account's transactions, newest first, fetched as the iteration goes:
   *
   * ```ts
   * for await (const page of cg.transactions.list('c-1', accountId, { fromDate: '2026-01-01' }))
   *   for (const t of page.transactions) console.log(t.bookingDate ?? 'pending', t.amount, t.creditDebit);
   * ```
   *
   * Pages never repeat or skip a transaction, even when new ones arrive meanwhile.
   */
  async *list(
    customerId: string,
    accountId: string,
    filters: TransactionFilters = {},
    options: CallOptions = {},
  ): AsyncGenerator<TransactionPage, void, undefined> {
    let cursor: string | undefined;
    do {
      const page: TransactionPage = await this.#get<TransactionPage>(
        `core/transactions?${query({ customerId, accountId, ...filters, cursor })}`,
        options,
      );
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /**
   * One sync call. Apply `added`, `modified` and `removed` (by id), store `nextCursor`, and
   * call again while `hasMore`. A 400 `invalid_cursor` means the cursor is older than what
   * coregate keeps: start again without one (everything of the last 90 days comes as `added`).
   */
  sync(
    customerId: string,
    accountId: string,
    sync: SyncOptions = {},
    options: CallOptions = {},
  ): Promise<TransactionSync> {
    return this.#get<TransactionSync>(
      `core/transactions/sync?${query({ customerId, accountId, cursor: sync.cursor, count: sync.count })}`,
      options,
    );
  }
}
