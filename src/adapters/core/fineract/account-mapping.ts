/**
 * Fineract accounts as account records (docs/cores/fineract.md#mapping): pure functions of
 * Fineract's answers and the read's context (the client, the customer key, the tenant,
 * coregate's clock). Every field of the record follows the mapping table there; a Fineract
 * answer that lacks what the table needs is a {@link MalformedAnswer}, and an answer about
 * another client's account is a {@link ForeignAccount}.
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
  optionalText,
  textField,
  type FineractDate,
} from './answer-reader.js';
import { URL_NAMESPACE, uuidV5 } from './uuid-v5.js';

/** What a record needs beyond Fineract's answers. */
export interface MappingContext {
  /** The session's Fineract client id: every account answer must name it as its `clientId`. */
  readonly clientId: string;
  readonly customerKey: string;
  readonly tenant: string;
  /** Now, on coregate's clock: "this calendar year" is its year in UTC. */
  readonly now: Date;
}

/**
 * An account answer names another client than the session's (or none): nothing of it may
 * pass. Carries no id, so a log line built from it cannot leak one.
 */
export class ForeignAccount extends Error {
  constructor(readonly path: string) {
    super(`${path}: names another client`);
    this.name = 'ForeignAccount';
  }
}

/**
 * Fineract's deposit types (`depositType.id`, `DepositAccountType`). 400, "current deposit",
 * is an enum value no account takes in 1.9, 1.10 or develop: a current account is a savings
 * product (100) with overdraft (docs/cores/fineract.md#releases).
 */
const DEPOSIT_TYPES = Object.freeze({
  100: 'savings',
  200: 'fixed deposit',
  300: 'recurring deposit',
} as const);
type DepositTypeId = keyof typeof DEPOSIT_TYPES;

/** An account as `GET /v1/clients/{id}/accounts` lists it. */
export interface ListedAccount {
  /** Fineract's id, as its decimal digits. */
  readonly id: string;
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
    accountNo: textField(account, 'accountNo', path),
    shortProductName: optionalText(account, 'shortProductName', path) ?? '',
    active: flag(status, 'active', `${path}.status`),
  };
  if (!savings) return listed;
  const depositType = Number(idField(objectField(account, 'depositType', path), 'id', `${path}.depositType`));
  if (!Object.hasOwn(DEPOSIT_TYPES, depositType))
    throw new MalformedAnswer(`${path}.depositType.id`, 'expected 100, 200 or 300');
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
function accountGuid(details: Record<string, unknown>, tenant: string, kind: 'savings' | 'loan', id: string): string {
  const externalId = optionalText(details, 'externalId', '');
  return externalId !== undefined && externalId.trim() !== ''
    ? externalId
    : uuidV5(`fineract:${tenant}:${kind}:${id}`, URL_NAMESPACE);
}

/**
 * The answer's `clientId` must be the session's client: Fineract names the owner in every
 * savings, deposit and loan answer, so an account of another client never passes.
 */
function ownedBy(details: Record<string, unknown>, context: MappingContext, path = ''): void {
  if (absent(details, 'clientId') || idField(details, 'clientId', path) !== context.clientId)
    throw new ForeignAccount(path === '' ? 'clientId' : `${path}.clientId`);
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

/** Sum of this calendar year's non-reversed interest postings in a savings or deposit answer's `transactions`. */
function interestPostedThisYear(details: Record<string, unknown>, year: number): number {
  return sumInterestPostings(listField(details, 'transactions', ''), 'transactions', year);
}

/**
 * Sum of the non-reversed interest postings dated in `year` among `transactions` (at `path`):
 * an answer's `transactions`, or a page of the transaction search's `content`.
 */
export function sumInterestPostings(transactions: unknown[], path: string, year: number): number {
  return sumForYear(
    transactions,
    path,
    year,
    (transaction, at) =>
      !flag(transaction, 'reversed', at) &&
      flag(objectField(transaction, 'transactionType', at), 'interestPosting', `${at}.transactionType`),
    (transaction, at) => numberField(transaction, 'amount', at),
  );
}

/** What a fixed or recurring deposit adds to its savings account. */
export interface TermDeposit {
  readonly maturityDate: FineractDate | undefined;
  readonly depositAmount: number;
  /**
   * This year's interest postings: Fineract lists a savings account's transactions for deposit
   * type 100 only, so a term deposit's come from its own answer.
   */
  readonly interestPosted: number;
}

/**
 * Reads `GET /v1/fixeddepositaccounts/{id}?associations=transactions` or
 * `GET /v1/recurringdepositaccounts/{id}?associations=transactions`.
 */
export function readTermDeposit(json: unknown, context: MappingContext): TermDeposit {
  const deposit = object(json, '');
  ownedBy(deposit, context);
  return {
    maturityDate: optionalDate(deposit, 'maturityDate', ''),
    depositAmount: optionalNumber(deposit, 'depositAmount', '') ?? 0,
    interestPosted: interestPostedThisYear(deposit, context.now.getUTCFullYear()),
  };
}

/**
 * A savings, current, fixed or recurring deposit account: `details` is
 * `GET /v1/savingsaccounts/{id}`; `term`, for fixed and recurring deposits, comes from their
 * own answer ({@link readTermDeposit}); `searchedInterest`, for deposit type 100, is this
 * year's interest postings from the paged transaction search (without it, the sum of
 * `details.transactions`, as `?associations=transactions` lists them). A savings
 * product with overdraft is a current account (`D`); Fineract leaves `overdraftLimit` out
 * when it is 0.
 */
export function savingsRecord(
  listed: ListedAccount,
  detailsJson: unknown,
  term: TermDeposit | undefined,
  context: MappingContext,
  searchedInterest?: number,
): AccountRecord {
  const details = object(detailsJson, '');
  ownedBy(details, context);
  const summary = objectField(details, 'summary', '');
  const accountBalance = numberField(summary, 'accountBalance', 'summary');
  const availableBalance = optionalNumber(summary, 'availableBalance', 'summary') ?? accountBalance;
  const timeline = objectField(details, 'timeline', '');
  const origination =
    optionalDate(timeline, 'activatedOnDate', 'timeline') ?? dateField(timeline, 'submittedOnDate', 'timeline');
  const interestPosted = term
    ? term.interestPosted
    : (searchedInterest ?? interestPostedThisYear(details, context.now.getUTCFullYear()));
  const overdraft = flag(details, 'allowOverdraft', '');
  const overdraftLimit = overdraft ? (optionalNumber(details, 'overdraftLimit', '') ?? 0) : 0;
  return {
    id: `savings-${listed.id}`,
    guid: accountGuid(details, context.tenant, 'savings', listed.id),
    accountReferenceId: listed.accountNo,
    type: typeLetter(listed.depositType ?? 100, overdraft),
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

function typeLetter(depositType: DepositTypeId, overdraft: boolean): AccountRecord['type'] {
  if (depositType === 200) return 'T';
  if (depositType === 300) return 'R';
  return overdraft ? 'D' : 'S';
}

/**
 * The loan transaction types Fineract itself counts as repayments
 * (`LoanTransactionType.isRepaymentType()`: six in 1.9 and 1.10, `interestPaymentWaiver`
 * added on develop), as the flags of a transaction's `type`.
 */
const REPAYMENT_TYPE_FLAGS = [
  'repayment',
  'merchantIssuedRefund',
  'payoutRefund',
  'goodwillCredit',
  'chargeRefund',
  'downPayment',
  'interestPaymentWaiver',
] as const;

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
  ownedBy(details, context);
  const summary = objectField(details, 'summary', '');
  const timeline = objectField(details, 'timeline', '');
  const origination =
    optionalDate(timeline, 'actualDisbursementDate', 'timeline') ?? dateField(timeline, 'submittedOnDate', 'timeline');
  const interestPaid = sumForYear(
    listField(details, 'transactions', ''),
    'transactions',
    context.now.getUTCFullYear(),
    (transaction, at) => {
      if (flag(transaction, 'manuallyReversed', at)) return false;
      const type = objectField(transaction, 'type', at);
      return REPAYMENT_TYPE_FLAGS.some((name) => flag(type, name, `${at}.type`));
    },
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
