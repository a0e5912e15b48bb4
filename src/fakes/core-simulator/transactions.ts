/**
 * The simulator's transactions (docs/behaviour.md#core-simulator): deterministic for every
 * account, made day by day from a digest of the account id and the day, and read relative to
 * the simulator's clock, so a test moving the clock sees what a real account shows over time:
 *
 * - today's and yesterday's transactions are pending; from the day after, each is booked under
 *   another id (the pending one is gone, as a card authorisation is replaced by its posting);
 * - about one booked transaction in twenty is reversed three days after its booking day (it
 *   stays listed with `reversed: true`);
 * - a demand deposit account (`type` `D`) moves three to seven times a day, so the demo
 *   customer's checking account holds over 400 transactions in any 90 days; other accounts
 *   up to twice a day.
 *
 * Pages follow the listing order and resume after a keyset (the last transaction's booking
 * day and id), so a page never repeats or skips one when newer ones arrive meanwhile.
 */
import { createHash } from 'node:crypto';
import type { AccountRecord } from '../../domain/account.js';
import { compareNewestFirst, isAfter, type ListingPosition, type TransactionRecord } from '../../domain/transaction.js';
import { addDays, isDay } from '../../domain/transaction-query.js';
import type { TransactionPage, TransactionPageRequest } from '../../ports/core-connector.js';

/** A transaction is pending on its own day and the next, booked from the day after. */
const PENDING_DAYS = 2;
/** A reversed transaction shows as reversed this many days after its booking day. */
const REVERSED_AFTER_DAYS = 3;
/** No account's history starts earlier than this many days back: more than any window asks for. */
const HISTORY_DAYS = 800;

const KINDS: readonly {
  type: TransactionRecord['type'];
  creditDebit: 'C' | 'D';
  descriptions: readonly string[];
}[] = [
  { type: 'payment', creditDebit: 'D', descriptions: ['Corner Coffee', 'Grocer & Sons', 'City Transit', 'Bookshop'] },
  { type: 'payment', creditDebit: 'D', descriptions: ['Online Market', 'Pharmacy', 'Fuel Station'] },
  { type: 'withdrawal', creditDebit: 'D', descriptions: ['ATM withdrawal'] },
  { type: 'deposit', creditDebit: 'C', descriptions: ['Payroll ACME Corp', 'Cash deposit'] },
  { type: 'transfer', creditDebit: 'D', descriptions: ['Transfer to savings', 'Rent'] },
  { type: 'transfer', creditDebit: 'C', descriptions: ['Transfer from J. Doe'] },
  { type: 'fee', creditDebit: 'D', descriptions: ['Monthly service fee', ''] },
  { type: 'interest', creditDebit: 'C', descriptions: ['Interest'] },
];

/** A cursor the simulator cannot read. */
export class BadSimulatorCursor extends Error {}

interface DayTransaction {
  readonly day: string;
  readonly index: number;
  readonly amount: number;
  readonly kind: (typeof KINDS)[number];
  readonly description: string;
  readonly reversible: boolean;
}

/** Day-by-day transactions of every account, made once per account and day. */
export class SimulatedTransactions {
  private readonly days = new Map<string, readonly DayTransaction[]>();

  /** One page of `account`'s transactions on `today`, as `GET /v1/accounts/{id}/transactions` answers it. */
  page(account: AccountRecord, request: TransactionPageRequest, today: string): TransactionPage {
    const after = request.cursor === undefined ? undefined : readCursor(request.cursor);
    const first = maxDay(request.fromDate, addDays(today, -HISTORY_DAYS));
    const last = request.toDate < today ? request.toDate : today;
    const records: TransactionRecord[] = [];
    for (let day = last; day >= first; day = addDays(day, -1)) {
      for (const made of this.dayOf(account, day)) {
        const record = recordOf(account, made, today);
        if (request.status !== 'both' && record.status !== request.status) continue;
        if (after && !isAfter(record, after)) continue;
        records.push(record);
      }
    }
    records.sort(compareNewestFirst);
    const transactions = records.slice(0, request.limit);
    const lastShown = transactions.at(-1);
    return {
      transactions,
      nextCursor: records.length > request.limit && lastShown ? writeCursor(lastShown) : null,
    };
  }

  private dayOf(account: AccountRecord, day: string): readonly DayTransaction[] {
    const key = `${account.id}\n${day}`;
    let made = this.days.get(key);
    if (!made) {
      // The memory of a long-running simulator stays bounded: a day is cheap to make again.
      if (this.days.size > 200_000) this.days.clear();
      made = makeDay(account, day);
      this.days.set(key, made);
    }
    return made;
  }
}

function makeDay(account: AccountRecord, day: string): DayTransaction[] {
  const bytes = createHash('sha256').update(`coregate-sim\n${account.id}\n${day}`).digest();
  const count = account.type === 'D' ? 3 + (bytes[0]! % 5) : bytes[0]! % 3;
  const made: DayTransaction[] = [];
  for (let index = 0; index < count; index += 1) {
    const at = 1 + index * 4;
    const kind = KINDS[bytes[at]! % KINDS.length]!;
    made.push({
      day,
      index,
      amount: (1 + bytes.readUInt16BE(at + 1) * 3) / 100,
      kind,
      description: kind.descriptions[bytes[at + 3]! % kind.descriptions.length]!,
      reversible: bytes[at + 3]! % 20 === 7,
    });
  }
  return made;
}

function recordOf(account: AccountRecord, made: DayTransaction, today: string): TransactionRecord {
  const pending = made.day > addDays(today, -PENDING_DAYS);
  const serial = `${made.day.replaceAll('-', '')}-${String(made.index).padStart(2, '0')}`;
  return {
    id: `${pending ? 'pnd' : 'txn'}-${account.id}-${serial}`,
    accountId: account.id,
    status: pending ? 'pending' : 'booked',
    bookingDate: pending ? null : made.day,
    valueDate: made.day,
    amount: made.amount,
    creditDebit: made.kind.creditDebit,
    currency: 'USD',
    description: made.description,
    type: made.kind.type,
    runningBalance: null,
    reversed: !pending && made.reversible && today >= addDays(made.day, REVERSED_AFTER_DAYS),
  };
}

function maxDay(a: string, b: string): string {
  return a > b ? a : b;
}

function writeCursor(position: ListingPosition): string {
  return Buffer.from(JSON.stringify([position.bookingDate, position.id])).toString('base64url');
}

function readCursor(cursor: string): ListingPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new BadSimulatorCursor('not a cursor of this simulator');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    !(parsed[0] === null || (typeof parsed[0] === 'string' && isDay(parsed[0]))) ||
    typeof parsed[1] !== 'string'
  )
    throw new BadSimulatorCursor('not a cursor of this simulator');
  return { bookingDate: parsed[0] as string | null, id: parsed[1] };
}
