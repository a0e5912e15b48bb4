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
 * - a booked transaction carries the account's running balance after it: the account's
 *   `currentBalance` at the start of {@link BALANCE_ANCHOR_DAY}, moved by every transaction in
 *   booking order (a day's in index order) and by each reversal on its day, before that day's
 *   transactions. Fixed once booked, whatever the clock says later; null while pending.
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
/** The day each account's running balance starts from (its `currentBalance` at the start of it). */
const BALANCE_ANCHOR_DAY = '2026-01-01';
/** Accounts whose start-of-day balances are kept; past it they are made again (cheap). */
const MAX_BALANCE_ACCOUNTS = 1_000;

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
  /** The amount in cents, signed: negative for money out. */
  readonly cents: number;
  readonly kind: (typeof KINDS)[number];
  readonly description: string;
  readonly reversible: boolean;
}

/** Day-by-day transactions of every account, made once per account and day. */
export class SimulatedTransactions {
  private readonly days = new Map<string, readonly DayTransaction[]>();
  /** Per account, its balance in cents at the start of each day reckoned so far. */
  private readonly dayStarts = new Map<string, Map<string, number>>();

  /** One page of `account`'s transactions on `today`, as `GET /v1/accounts/{id}/transactions` answers it. */
  page(account: AccountRecord, request: TransactionPageRequest, today: string): TransactionPage {
    const after = request.cursor === undefined ? undefined : readCursor(request.cursor);
    const first = maxDay(request.fromDate, addDays(today, -HISTORY_DAYS));
    const last = request.toDate < today ? request.toDate : today;
    const records: TransactionRecord[] = [];
    for (let day = last; day >= first; day = addDays(day, -1)) {
      const made = this.dayOf(account, day);
      const booked = day <= addDays(today, -PENDING_DAYS);
      let balance = booked ? this.dayStart(account, day) + this.reversedOn(account, day) : 0;
      for (const one of made) {
        balance += one.cents;
        const record = recordOf(account, one, today, booked ? balance / 100 : null);
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

  /** The account's balance in cents at the start of `day`, reckoned from the anchor day. */
  private dayStart(account: AccountRecord, day: string): number {
    let starts = this.dayStarts.get(account.id);
    if (!starts) {
      if (this.dayStarts.size >= MAX_BALANCE_ACCOUNTS) this.dayStarts.clear();
      starts = new Map([[BALANCE_ANCHOR_DAY, Math.round(account.currentBalance * 100)]]);
      this.dayStarts.set(account.id, starts);
    }
    const known = starts.get(day);
    if (known !== undefined) return known;
    // Walk from the anchor towards `day`, keeping each start on the way.
    const forward = day > BALANCE_ANCHOR_DAY;
    let at = BALANCE_ANCHOR_DAY;
    let balance = starts.get(at)!;
    while (at !== day) {
      const next = addDays(at, forward ? 1 : -1);
      const moved = starts.get(next);
      if (moved === undefined) {
        // The day's movements: after `at` when going forward, those of `next` when going back.
        const of = forward ? at : next;
        const net = this.dayOf(account, of).reduce((sum, one) => sum + one.cents, 0) + this.reversedOn(account, of);
        balance = forward ? balance + net : balance - net;
        starts.set(next, balance);
      } else balance = moved;
      at = next;
    }
    return balance;
  }

  /** What the reversals shown on `day` move, in cents: each undoes a transaction booked {@link REVERSED_AFTER_DAYS} before. */
  private reversedOn(account: AccountRecord, day: string): number {
    return this.dayOf(account, addDays(day, -REVERSED_AFTER_DAYS))
      .filter((one) => one.reversible)
      .reduce((sum, one) => sum - one.cents, 0);
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
    const cents = 1 + bytes.readUInt16BE(at + 1) * 3;
    made.push({
      day,
      index,
      amount: cents / 100,
      cents: kind.creditDebit === 'C' ? cents : -cents,
      kind,
      description: kind.descriptions[bytes[at + 3]! % kind.descriptions.length]!,
      reversible: bytes[at + 3]! % 20 === 7,
    });
  }
  return made;
}

function recordOf(
  account: AccountRecord,
  made: DayTransaction,
  today: string,
  runningBalance: number | null,
): TransactionRecord {
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
    runningBalance,
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
