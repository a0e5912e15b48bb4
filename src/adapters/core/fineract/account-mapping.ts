/**
 * Fineract accounts as account records (docs/cores/fineract.md#mapping): pure functions of
 * Fineract's answers and the read's context (the customer key, the tenant, coregate's
 * clock). Every field of the record follows the mapping table there; a Fineract answer
 * that lacks what the table needs is a {@link MalformedAnswer}.
 */
import { NO_DATE, type AccountRecord } from '../../../domain/account.js';
import {
  absent,
  dateField,
  flag,
  idField,
  listField,
  MalformedAnswer,
  numberField,
  object,
  objectField,
  optionalDate,
  optionalNumber,
  optionalObject,
  optionalString,
  stringField,
  type FineractDate,
} from './answer-reader.js';
import { URL_NAMESPACE, uuidV5 } from './uuid-v5.js';

/** What a record needs beyond Fineract's answers. */
export interface MappingContext {
  readonly customerKey: string;
  readonly tenant: string;
  /** Now, on coregate's clock: "this calendar year" is its year in UTC. */
  readonly now: Date;
}

/** Fineract's deposit types (`depositType.id`) and the record's type letter for each. */
const DEPOSIT_TYPES = Object.freeze({
  100: { name: 'savings', letter: 'S' },
  200: { name: 'fixed deposit', letter: 'T' },
  300: { name: 'recurring deposit', letter: 'R' },
  400: { name: 'current', letter: 'D' },
} as const);
type DepositTypeId = keyof typeof DEPOSIT_TYPES;

/** An account as `GET /v1/clients/{id}/accounts` lists it. */
export interface ListedAccount {
  readonly id: number;
  readonly accountNo: string;
  readonly shortProductName: string;
  readonly active: boolean;
  /** Savings side only. */
  readonly depositType?: DepositTypeId | undefined;
}

export interface ClientAccounts {
  readonly savings: readonly ListedAccount[];
  readonly loans: readonly ListedAccount[];
}

function listedAccount(value: unknown, path: string, savings: boolean): ListedAccount {
  const account = object(value, path);
  const status = objectField(account, 'status', path);
  const listed = {
    id: idField(account, 'id', path),
    accountNo: stringField(account, 'accountNo', path),
    shortProductName: optionalString(account, 'shortProductName', path) ?? '',
    active: flag(status, 'active', `${path}.status`),
  };
  if (!savings) return listed;
  const depositType = idField(objectField(account, 'depositType', path), 'id', `${path}.depositType`);
  if (!Object.hasOwn(DEPOSIT_TYPES, depositType))
    throw new MalformedAnswer(`${path}.depositType.id`, 'expected 100, 200, 300 or 400');
  return { ...listed, depositType: depositType as DepositTypeId };
}

/** Reads `GET /v1/clients/{id}/accounts`: both lists in Fineract's order (absent lists are empty). */
export function readClientAccounts(json: unknown): ClientAccounts {
  const answer = object(json, '');
  return {
    savings: listField(answer, 'savingsAccounts', '').map((item, index) =>
      listedAccount(item, `savingsAccounts[${index}]`, true),
    ),
    loans: listField(answer, 'loanAccounts', '').map((item, index) =>
      listedAccount(item, `loanAccounts[${index}]`, false),
    ),
  };
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** `YYYY-MM-DDT00:00:00`; no date is {@link NO_DATE}. */
export function dateTime(date: FineractDate | undefined): string {
  if (date === undefined) return NO_DATE;
  return `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}T00:00:00`;
}

/** The account's `externalId` when set; else a UUID v5 of `fineract:{tenant}:{savings|loan}:{id}` (URL namespace). */
function accountGuid(details: Record<string, unknown>, tenant: string, kind: 'savings' | 'loan', id: number): string {
  const externalId = optionalString(details, 'externalId', '');
  return externalId !== undefined && externalId.trim() !== ''
    ? externalId
    : uuidV5(`fineract:${tenant}:${kind}:${id}`, URL_NAMESPACE);
}

/** The record's fields that are the same for every Fineract account. */
function fixedFields(customerKey: string) {
  return {
    customerKey,
    nickname: '',
    isDefault: false,
    hasCard: false,
    receiveEmailNotices: 'N',
    receiveEmailStatements: 'N',
    receivePaperNotices: 'N',
    receivePaperStatements: 'N',
    authorizationCode: 'A',
  } as const;
}

/**
 * Sum of `amountOf(transaction)` over the transactions dated in `year` that `counts`.
 * The date is read only for the transactions that count, so an unrelated transaction's
 * odd date does not fail the read.
 */
function sumForYear(
  transactions: unknown[],
  path: string,
  year: number,
  counts: (transaction: Record<string, unknown>, at: string) => boolean,
  amountOf: (transaction: Record<string, unknown>, at: string) => number,
): number {
  let sum = 0;
  transactions.forEach((item, index) => {
    const at = `${path}[${index}]`;
    const transaction = object(item, at);
    if (!counts(transaction, at)) return;
    if (dateField(transaction, 'date', at).year === year) sum += amountOf(transaction, at);
  });
  return sum;
}

/** What a fixed or recurring deposit adds to its savings account. */
export interface TermDeposit {
  readonly maturityDate: FineractDate | undefined;
  readonly depositAmount: number;
}

/** Reads `GET /v1/fixeddepositaccounts/{id}` or `GET /v1/recurringdepositaccounts/{id}`. */
export function readTermDeposit(json: unknown): TermDeposit {
  const deposit = object(json, '');
  return {
    maturityDate: optionalDate(deposit, 'maturityDate', ''),
    depositAmount: optionalNumber(deposit, 'depositAmount', '') ?? 0,
  };
}

/**
 * A savings, current, fixed or recurring deposit account: `details` is
 * `GET /v1/savingsaccounts/{id}?associations=transactions`; `term`, for fixed and
 * recurring deposits, comes from their own answer ({@link readTermDeposit}).
 */
export function savingsRecord(
  listed: ListedAccount,
  detailsJson: unknown,
  term: TermDeposit | undefined,
  context: MappingContext,
): AccountRecord {
  const details = object(detailsJson, '');
  const summary = objectField(details, 'summary', '');
  const accountBalance = numberField(summary, 'accountBalance', 'summary');
  const availableBalance = optionalNumber(summary, 'availableBalance', 'summary') ?? accountBalance;
  const timeline = objectField(details, 'timeline', '');
  const origination =
    optionalDate(timeline, 'activatedOnDate', 'timeline') ?? dateField(timeline, 'submittedOnDate', 'timeline');
  const year = context.now.getUTCFullYear();
  const interestPosted = sumForYear(
    listField(details, 'transactions', ''),
    'transactions',
    year,
    (transaction, at) =>
      !flag(transaction, 'reversed', at) &&
      flag(objectField(transaction, 'transactionType', at), 'interestPosting', `${at}.transactionType`),
    (transaction, at) => numberField(transaction, 'amount', at),
  );
  const overdraft = flag(details, 'allowOverdraft', '');
  const overdraftLimit = overdraft ? numberField(details, 'overdraftLimit', '') : 0;
  const type = listed.depositType ?? 100;
  return {
    id: `savings-${listed.id}`,
    guid: accountGuid(details, context.tenant, 'savings', listed.id),
    accountReferenceId: listed.accountNo,
    type: DEPOSIT_TYPES[type].letter,
    currentBalance: accountBalance,
    availableBalance,
    interestRate: numberField(details, 'nominalAnnualInterestRate', '') / 100,
    accruedInterest: optionalNumber(summary, 'interestNotPosted', 'summary') ?? 0,
    yearToDateInterest: interestPosted,
    paidYearToDateInterest: interestPosted,
    pastDueAmount: 0,
    creditLimit: overdraftLimit,
    availableCredit: overdraft ? Math.max(0, overdraftLimit - Math.max(0, -accountBalance)) : 0,
    originationDate: dateTime(origination),
    nextPaymentDate: NO_DATE,
    maturityDate: term ? dateTime(term.maturityDate) : NO_DATE,
    productCode: listed.shortProductName,
    originalBalance: term ? term.depositAmount : 0,
    ...fixedFields(context.customerKey),
  };
}

/** The due date of the first repayment period not yet complete (`complete: false`). */
function nextDueDate(details: Record<string, unknown>): FineractDate | undefined {
  const schedule = optionalObject(details, 'repaymentSchedule', '');
  if (!schedule) return undefined;
  const periods = listField(schedule, 'periods', 'repaymentSchedule');
  for (let index = 0; index < periods.length; index += 1) {
    const at = `repaymentSchedule.periods[${index}]`;
    const period = object(periods[index], at);
    if (!absent(period, 'complete') && !flag(period, 'complete', at)) return dateField(period, 'dueDate', at);
  }
  return undefined;
}

/** A loan: `details` is `GET /v1/loans/{id}?associations=repaymentSchedule,transactions`. */
export function loanRecord(listed: ListedAccount, detailsJson: unknown, context: MappingContext): AccountRecord {
  const details = object(detailsJson, '');
  const summary = objectField(details, 'summary', '');
  const timeline = objectField(details, 'timeline', '');
  const origination =
    optionalDate(timeline, 'actualDisbursementDate', 'timeline') ?? dateField(timeline, 'submittedOnDate', 'timeline');
  const interestPaid = sumForYear(
    listField(details, 'transactions', ''),
    'transactions',
    context.now.getUTCFullYear(),
    (transaction, at) =>
      !flag(transaction, 'manuallyReversed', at) &&
      flag(objectField(transaction, 'type', at), 'repayment', `${at}.type`),
    (transaction, at) => optionalNumber(transaction, 'interestPortion', at) ?? 0,
  );
  return {
    id: `loan-${listed.id}`,
    guid: accountGuid(details, context.tenant, 'loan', listed.id),
    accountReferenceId: listed.accountNo,
    type: 'L',
    currentBalance: numberField(summary, 'totalOutstanding', 'summary'),
    availableBalance: 0,
    interestRate: numberField(details, 'annualInterestRate', '') / 100,
    accruedInterest: 0,
    yearToDateInterest: interestPaid,
    paidYearToDateInterest: interestPaid,
    pastDueAmount: optionalNumber(summary, 'totalOverdue', 'summary') ?? 0,
    creditLimit: 0,
    availableCredit: 0,
    originationDate: dateTime(origination),
    nextPaymentDate: dateTime(nextDueDate(details)),
    maturityDate: dateTime(optionalDate(timeline, 'expectedMaturityDate', 'timeline')),
    productCode: listed.shortProductName,
    originalBalance: optionalNumber(summary, 'principalDisbursed', 'summary') ?? numberField(details, 'principal', ''),
    ...fixedFields(context.customerKey),
  };
}
