/**
 * The cursors of `GET /core/transactions` and `/core/transactions/sync`
 * (docs/behaviour.md#transaction-cursors): opaque to the platform, sealed with AES-256-GCM
 * under the installation's encryption key, the platform, customer and account bound in as
 * authenticated data. A cursor altered by one bit, made for another platform, customer or
 * account, or of the other kind, does not open: `invalid_cursor`.
 *
 * A page cursor holds the filters it was made with, the keyset of the last transaction
 * answered (docs/behaviour.md#transactions: booking day, pending first, and id) and the
 * core's own cursor; a sync cursor holds the generation of the kept state it follows.
 */
import type { AssociationKey } from '../domain/association.js';
import { invalidCursor } from '../domain/errors.js';
import { isPlainObject } from '../domain/json.js';
import { STATUS_FILTERS, type ListingPosition, type StatusFilter } from '../domain/transaction.js';
import { isDay, type FilterInput, type TransactionFilters } from '../domain/transaction-query.js';
import type { SecretSealer } from '../ports/secret-sealer.js';

/** Whose cursor it is: a cursor opens only for the same platform, customer and account. */
export interface CursorBinding extends AssociationKey {
  readonly accountId: string;
}

/** Where the next page starts. */
export interface PagePosition {
  readonly filters: TransactionFilters;
  /** The last transaction answered: the next page holds only transactions after it. */
  readonly after: ListingPosition | null;
  /** The core's cursor of its next page. */
  readonly core: string;
}

function context(kind: 'page' | 'sync', binding: CursorBinding): string {
  return `transactions-${kind}:${JSON.stringify([binding.institution, binding.platform, binding.customerId, binding.accountId])}`;
}

export class TransactionCursors {
  constructor(private readonly sealer: SecretSealer) {}

  sealPage(binding: CursorBinding, position: PagePosition): string {
    const { filters, after, core } = position;
    return this.sealer.seal(
      JSON.stringify([
        filters.fromDate,
        filters.toDate,
        filters.status,
        after?.bookingDate ?? null,
        after?.id ?? null,
        core,
      ]),
      context('page', binding),
    );
  }

  /**
   * The position a page cursor names, when it opens for `binding` and the filters the request
   * names (if any) are the ones it was made with; otherwise `invalid_cursor`.
   */
  openPage(binding: CursorBinding, cursor: string, requested: FilterInput): PagePosition {
    const parts = this.open(cursor, context('page', binding));
    if (!Array.isArray(parts) || parts.length !== 6) throw invalidCursor('a page cursor of another shape');
    const [fromDate, toDate, status, bookingDate, id, core] = parts as unknown[];
    if (
      typeof fromDate !== 'string' ||
      !isDay(fromDate) ||
      typeof toDate !== 'string' ||
      !isDay(toDate) ||
      !STATUS_FILTERS.includes(status as StatusFilter) ||
      !(bookingDate === null || (typeof bookingDate === 'string' && isDay(bookingDate))) ||
      !(id === null || typeof id === 'string') ||
      typeof core !== 'string'
    )
      throw invalidCursor('a page cursor with fields of another type');
    const filters: TransactionFilters = { fromDate, toDate, status: status as StatusFilter };
    for (const name of ['fromDate', 'toDate', 'status'] as const) {
      const value = requested[name];
      if (value !== undefined && value !== filters[name])
        throw invalidCursor(`the cursor was made for another ${name}`);
    }
    return { filters, after: id === null ? null : { bookingDate: bookingDate, id }, core };
  }

  sealSync(binding: CursorBinding, generation: number): string {
    return this.sealer.seal(JSON.stringify({ generation }), context('sync', binding));
  }

  /** The generation a sync cursor follows, when it opens for `binding`; otherwise `invalid_cursor`. */
  openSync(binding: CursorBinding, cursor: string): number {
    const opened = this.open(cursor, context('sync', binding));
    const generation = isPlainObject(opened) ? opened.generation : undefined;
    if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation < 1)
      throw invalidCursor('a sync cursor of another shape');
    return generation;
  }

  private open(cursor: string, bound: string): unknown {
    let text: string;
    try {
      text = this.sealer.open(cursor, bound);
    } catch {
      // Tampered with, malformed, sealed for another binding or kind, or under a key this process lacks.
      throw invalidCursor('the cursor does not open for this platform, customer and account');
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw invalidCursor('the cursor does not hold JSON');
    }
  }
}
