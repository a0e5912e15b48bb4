/**
 * Fineract's savings and loan transactions as transaction records (docs/cores/fineract.md#transactions):
 * pure functions from one row of an answer to a record, or to nothing for a row that moves no
 * money (an accrual, a hold, a transfer's office paperwork, the reversal row of a reversal).
 * Types are read by their numeric id (`SavingsAccountTransactionType`, `LoanTransactionType`),
 * which every release keeps; an id the tables do not know is left out, not guessed.
 */
import type { TransactionRecord } from '../../../domain/transaction.js';
import {
  absent,
  dateField,
  flag,
  idField,
  MalformedAnswer,
  numberField,
  object,
  objectField,
  optionalNumber,
  optionalString,
  stringField,
  type FineractDate,
} from './answer-reader.js';
import { URL_NAMESPACE, uuidV5 } from './uuid-v5.js';

type Kind = Pick<TransactionRecord, 'type' | 'creditDebit'>;

/**
 * `SavingsAccountTransactionType` ids that move money, with their record type and direction
 * (the enum's own `TransactionEntryType`). Left out: 0 invalid, 6 waive charges, 10 accrual
 * (1.10 on), 12–15 the transfer of an account between offices, 16 written off, and 20/21 amount
 * hold and release (holds are not transactions).
 */
const SAVINGS_KINDS: ReadonlyMap<number, Kind> = new Map<number, Kind>([
  [1, { type: 'deposit', creditDebit: 'C' }],
  [2, { type: 'withdrawal', creditDebit: 'D' }],
  [3, { type: 'interest', creditDebit: 'C' }],
  [4, { type: 'fee', creditDebit: 'D' }],
  [5, { type: 'fee', creditDebit: 'D' }],
  [7, { type: 'fee', creditDebit: 'D' }],
  [8, { type: 'other', creditDebit: 'C' }],
  [17, { type: 'interest', creditDebit: 'D' }],
  [18, { type: 'other', creditDebit: 'D' }],
  [19, { type: 'other', creditDebit: 'D' }],
]);

/**
 * `LoanTransactionType` ids that move what the borrower owes, as seen from the loan account:
 * `D` adds to the debt (a disbursement, a refund paid out), `C` reduces it (repayments, waivers,
 * a write-off). Left out: 0 invalid, 3 contra, 7 marked for rescheduling, 10 accrual, 12–15
 * office transfers, 19 income posting, 27 charge-off, 29 re-age, 30 re-amortize, 32 accrual
 * activity: accounting entries, not movements.
 */
const LOAN_KINDS: ReadonlyMap<number, Kind> = new Map<number, Kind>([
  [1, { type: 'disbursement', creditDebit: 'D' }],
  [2, { type: 'repayment', creditDebit: 'C' }],
  [4, { type: 'other', creditDebit: 'C' }],
  [5, { type: 'repayment', creditDebit: 'C' }],
  [6, { type: 'other', creditDebit: 'C' }],
  [8, { type: 'repayment', creditDebit: 'C' }],
  [9, { type: 'other', creditDebit: 'C' }],
  [16, { type: 'other', creditDebit: 'D' }],
  [17, { type: 'repayment', creditDebit: 'C' }],
  [18, { type: 'other', creditDebit: 'D' }],
  [20, { type: 'other', creditDebit: 'D' }],
  [21, { type: 'repayment', creditDebit: 'C' }],
  [22, { type: 'repayment', creditDebit: 'C' }],
  [23, { type: 'repayment', creditDebit: 'C' }],
  [24, { type: 'repayment', creditDebit: 'C' }],
  [25, { type: 'other', creditDebit: 'D' }],
  [26, { type: 'other', creditDebit: 'C' }],
  [28, { type: 'repayment', creditDebit: 'C' }],
  [31, { type: 'repayment', creditDebit: 'C' }],
  [33, { type: 'interest', creditDebit: 'C' }],
]);

/** The savings types the search is asked for: those that move money, so a page holds no row left out. */
export const SAVINGS_SEARCH_TYPES = [...SAVINGS_KINDS.keys()].join(',');

/** What a row's record needs beyond the row: the account as `/core/accounts` names it, and the tenant its ids are bound to. */
export interface TransactionMappingContext {
  readonly accountId: string;
  readonly tenant: string;
}

const MAX_DESCRIPTION = 1024;
const pad = (value: number, width: number) => String(value).padStart(width, '0');

export function day(date: FineractDate): string {
  return `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}`;
}

/** A transaction's id: a UUID v5 of `fineract:{tenant}:{savings|loan}-transaction:{id}`, stable and telling nothing. */
function transactionId(tenant: string, kind: 'savings' | 'loan', id: string): string {
  return uuidV5(`fineract:${tenant}:${kind}-transaction:${id}`, URL_NAMESPACE);
}

function currencyOf(row: Record<string, unknown>, path: string): string {
  const code = stringField(objectField(row, 'currency', path), 'code', `${path}.currency`);
  if (!/^[A-Z]{3}$/.test(code)) throw new MalformedAnswer(`${path}.currency.code`, 'expected an ISO 4217 code');
  return code;
}

function amountOf(row: Record<string, unknown>, path: string): number {
  const amount = numberField(row, 'amount', path);
  if (!(amount > 0)) throw new MalformedAnswer(`${path}.amount`, 'expected a positive number');
  return amount;
}

/** The row's note when it has one, else the type's name as Fineract words it; never longer than a record allows. */
function descriptionOf(row: Record<string, unknown>, type: Record<string, unknown>, path: string): string {
  const note = optionalString(row, 'note', path);
  const text = note !== undefined && note.trim() !== '' ? note : (optionalString(type, 'value', path) ?? '');
  return text.slice(0, MAX_DESCRIPTION);
}

function record(
  id: string,
  kind: Kind,
  row: Record<string, unknown>,
  type: Record<string, unknown>,
  path: string,
  context: TransactionMappingContext,
  reversed: boolean,
  runningBalance: number | undefined,
): TransactionRecord {
  const date = day(dateField(row, 'date', path));
  return {
    id,
    accountId: context.accountId,
    status: 'booked',
    bookingDate: date,
    valueDate: date,
    amount: amountOf(row, path),
    creditDebit: kind.creditDebit,
    currency: currencyOf(row, path),
    description: descriptionOf(row, type, path),
    type: kind.type,
    // A reversed transaction's balance after it is not the account's: Fineract recomputes the others.
    runningBalance: reversed ? null : (runningBalance ?? null),
    reversed,
  };
}

/**
 * One row of a savings account's transactions (the search's `content`, a deposit's
 * `transactions`), or `undefined` for a row that moves no money or is the reversal row of a
 * reversal (`isReversal`: the reversed original stays listed with `reversed: true`). A
 * deposit or withdrawal that is one leg of an account transfer (`transfer` set) is a `transfer`.
 */
export function savingsTransaction(
  value: unknown,
  path: string,
  context: TransactionMappingContext,
): TransactionRecord | undefined {
  const row = object(value, path);
  const type = objectField(row, 'transactionType', path);
  const kind = SAVINGS_KINDS.get(numberField(type, 'id', `${path}.transactionType`));
  if (kind === undefined || flag(row, 'isReversal', path)) return undefined;
  const transfer = !absent(row, 'transfer') && (kind.type === 'deposit' || kind.type === 'withdrawal');
  const id = transactionId(context.tenant, 'savings', idField(row, 'id', path));
  return record(
    id,
    transfer ? { ...kind, type: 'transfer' } : kind,
    row,
    type,
    path,
    context,
    flag(row, 'reversed', path),
    optionalNumber(row, 'runningBalance', path),
  );
}

/**
 * One row of a loan's `transactions`, or `undefined` for an accounting entry. Fineract lists a
 * loan's transactions that are not reversed or were reversed by a user (`manuallyReversed`);
 * those are `reversed: true`. The balance after it is `outstandingLoanBalance`, what is owed.
 */
export function loanTransaction(
  value: unknown,
  path: string,
  context: TransactionMappingContext,
): TransactionRecord | undefined {
  const row = object(value, path);
  const type = objectField(row, 'type', path);
  const kind = LOAN_KINDS.get(numberField(type, 'id', `${path}.type`));
  if (kind === undefined) return undefined;
  const id = transactionId(context.tenant, 'loan', idField(row, 'id', path));
  return record(
    id,
    kind,
    row,
    type,
    path,
    context,
    flag(row, 'manuallyReversed', path),
    optionalNumber(row, 'outstandingLoanBalance', path),
  );
}
