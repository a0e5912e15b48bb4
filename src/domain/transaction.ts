/**
 * The transaction record (docs/behaviour.md#transactions), once: the gateway's response
 * schemas (`http/routes/core/transactions.ts`), the check of a core's answers and the
 * `TransactionRecord` type all come from {@link TransactionRecordSchema}. Its order
 * (newest first, pending before booked, then by id descending) is {@link compareNewestFirst}.
 */
import { Type, type Static } from '@sinclair/typebox';

/** Pattern of a calendar day, `YYYY-MM-DD`; whether it is a real day is checked beside it. */
export const DAY_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

/**
 * Pattern of an account id as a platform sends it back (an `id` of `/core/accounts`):
 * 1 to 128 visible ASCII characters, so it travels in a URL path segment once encoded.
 */
export const ACCOUNT_ID_PATTERN = '^[\\x21-\\x7E]{1,128}$';

/**
 * The kinds of movement, a closed list a platform can switch on (the FDX and Plaid
 * categories cut down to what every core knows). A core's own code that fits none of
 * them is `other` (docs/behaviour.md#transaction-types).
 */
const TRANSACTION_TYPES = [
  'deposit',
  'withdrawal',
  'interest',
  'fee',
  'transfer',
  'payment',
  'disbursement',
  'repayment',
  'other',
] as const;

const TRANSACTION_STATUSES = ['booked', 'pending'] as const;
/** The `status` filter: one of the two, or both (the default). */
export const STATUS_FILTERS = ['booked', 'pending', 'both'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

const Day = (description: string) => Type.String({ pattern: DAY_PATTERN, description, examples: ['2026-03-01'] });

/**
 * A movement of an account. Every field is present; `additionalProperties: false`: as a
 * response schema it is an allow-list, so nothing beyond these fields reaches a platform.
 */
export const TransactionRecordSchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        "the core's id, stable for the transaction's life; a pending transaction and the booked one that replaces it have different ids",
    }),
    accountId: Type.String({ description: 'the `id` of the account in `/core/accounts`' }),
    status: Type.Union(
      TRANSACTION_STATUSES.map((status) => Type.Literal(status)),
      { description: '`booked` or `pending`' },
    ),
    bookingDate: Type.Union([Day('the day the core booked it'), Type.Null()], {
      description: '`YYYY-MM-DD`; null while pending',
    }),
    valueDate: Day('the day the money moved (or will), `YYYY-MM-DD`'),
    amount: Type.Number({ exclusiveMinimum: 0, description: 'positive; the direction is `creditDebit`' }),
    creditDebit: Type.Union([Type.Literal('C'), Type.Literal('D')], {
      description: '`C`: money in; `D`: money out',
    }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code', examples: ['USD'] }),
    description: Type.String({ maxLength: 1024, description: 'as the core words it; may be empty' }),
    type: Type.Union(
      TRANSACTION_TYPES.map((type) => Type.Literal(type)),
      { description: "the kind of movement; `other` for a core's code that fits none" },
    ),
    runningBalance: Type.Union([Type.Number(), Type.Null()], {
      description: 'the balance after it, where the core knows it',
    }),
    reversed: Type.Boolean({ description: 'a reversed transaction stays listed with `true`' }),
  },
  { $id: 'TransactionRecord', additionalProperties: false },
);

/** A movement of an account as the core reports it (docs/behaviour.md#transactions). */
export type TransactionRecord = Readonly<Static<typeof TransactionRecordSchema>>;

/**
 * Where a record stands in the listing order: pending ones (no booking day) first,
 * then by booking day and by id, both descending. The keyset of a page cursor.
 */
export interface ListingPosition {
  readonly bookingDate: string | null;
  readonly id: string;
}

/**
 * Negative when `a` comes before `b` in the listing order (docs/behaviour.md#transactions):
 * newest first, pending (no booking day) before every booked one, then by id descending.
 * Ids compare by UTF-16 code units, as the core's own keyset must.
 */
export function compareNewestFirst(a: ListingPosition, b: ListingPosition): number {
  if (a.bookingDate !== b.bookingDate) {
    if (a.bookingDate === null) return -1;
    if (b.bookingDate === null) return 1;
    return a.bookingDate > b.bookingDate ? -1 : 1;
  }
  if (a.id === b.id) return 0;
  return a.id > b.id ? -1 : 1;
}

/** Whether `record` sits strictly after `position` in the listing order (a page resuming there may show it). */
export function isAfter(record: ListingPosition, position: ListingPosition): boolean {
  return compareNewestFirst(record, position) > 0;
}
