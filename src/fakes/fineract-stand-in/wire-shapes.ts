/**
 * Fineract's wire shapes as the stand-in writes them (docs/cores/fineract.md#wire-shape):
 * error bodies, status and type enums, and Gson's habit of leaving out null fields.
 */
import {
  LOAN_TRANSACTION_KINDS,
  type SAVINGS_TRANSACTION_KINDS,
  type StandInClient,
  type StandInLoan,
  type StandInSavings,
} from './stand-in-data.js';
import type { ReleaseBehaviour } from './releases.js';

type LoanTransactionKind = (typeof LOAN_TRANSACTION_KINDS)[number];

export type Json = Record<string, unknown>;

/** Fineract's error body (`ApiGlobalErrorResponse`). */
export function fineractError(status: number, code: string, message: string, errors: Json[] = []): Json {
  return {
    developerMessage: message,
    httpStatusCode: String(status),
    defaultUserMessage: message,
    userMessageGlobalisationCode: code,
    errors,
  };
}

export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(String(body.developerMessage));
  }
}

export function notFound(what: string, id: string | number): Refusal {
  const message = `${what} with identifier ${id} does not exist`;
  return new Refusal(
    404,
    fineractError(404, 'error.msg.resource.not.found', 'The requested resource is not available.', [
      {
        developerMessage: message,
        defaultUserMessage: message,
        userMessageGlobalisationCode: `error.msg.${what.toLowerCase().replace(/\s+/g, '')}.id.invalid`,
        parameterName: 'id',
        value: null,
        args: [{ value: id }],
      },
    ]),
  );
}

export const CURRENCY = {
  code: 'USD',
  name: 'US Dollar',
  decimalPlaces: 2,
  inMultiplesOf: 1,
  displaySymbol: '$',
  nameCode: 'currency.USD',
  displayLabel: 'US Dollar ($)',
};

export function savingsStatus(status: StandInSavings['status']): Json {
  const table = {
    submitted: [100, 'savingsAccountStatusType.submitted.and.pending.approval', 'Submitted and pending approval'],
    active: [300, 'savingsAccountStatusType.active', 'Active'],
    closed: [600, 'savingsAccountStatusType.closed', 'Closed'],
  } as const;
  const [id, code, value] = table[status];
  return {
    id,
    code,
    value,
    submittedAndPendingApproval: status === 'submitted',
    approved: status !== 'submitted',
    rejected: false,
    withdrawnByApplicant: false,
    active: status === 'active',
    closed: status === 'closed',
    prematureClosed: false,
    transferInProgress: false,
    transferOnHold: false,
    matured: false,
  };
}

export function loanStatus(status: StandInLoan['status']): Json {
  const table = {
    submitted: [100, 'loanStatusType.submitted.and.pending.approval', 'Submitted and pending approval'],
    active: [300, 'loanStatusType.active', 'Active'],
    closed: [600, 'loanStatusType.closed.obligations.met', 'Closed (obligations met)'],
  } as const;
  const [id, code, value] = table[status];
  return {
    id,
    code,
    value,
    pendingApproval: status === 'submitted',
    waitingForDisbursal: false,
    active: status === 'active',
    closedObligationsMet: status === 'closed',
    closedWrittenOff: false,
    closedRescheduled: false,
    closed: status === 'closed',
    overpaid: false,
  };
}

const DEPOSIT_TYPES = {
  100: ['depositAccountType.savingsDeposit', 'Savings'],
  200: ['depositAccountType.fixedDeposit', 'Fixed Deposit'],
  300: ['depositAccountType.recurringDeposit', 'Recurring Deposit'],
} as const;

export function depositType(id: StandInSavings['depositType']): Json {
  return { id, code: DEPOSIT_TYPES[id][0], value: DEPOSIT_TYPES[id][1] };
}

export function displayName(client: StandInClient): string {
  return `${client.firstname} ${client.lastname}`;
}

/** Fineract's Gson leaves out fields whose value is null: so does the stand-in. */
export function withOptional(body: Json, optional: Json): Json {
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) body[name] = value;
  return body;
}

type SavingsTransactionKind = (typeof SAVINGS_TRANSACTION_KINDS)[number];

/**
 * `SavingsAccountTransactionType` ids, entry types, and the value `SavingsEnumerations.transactionType`
 * gives each (fineract-core/…/portfolio/savings/, the same on 1.9.0, 1.10.1 and develop).
 */
const SAVINGS_TRANSACTION_TYPES: Readonly<
  Record<SavingsTransactionKind, readonly [id: number, entry: 'CREDIT' | 'DEBIT', value: string]>
> = {
  deposit: [1, 'CREDIT', 'Deposit'],
  withdrawal: [2, 'DEBIT', 'Withdrawal'],
  interestPosting: [3, 'CREDIT', 'Interest posting'],
  withdrawalFee: [4, 'DEBIT', 'Withdrawal fee'],
  annualFee: [5, 'DEBIT', 'Annual fee'],
  payCharge: [7, 'DEBIT', 'Pay Charge'],
  dividendPayout: [8, 'CREDIT', 'Dividend Payout'],
};

export function savingsTransactionTypeId(kind: SavingsTransactionKind): number {
  return SAVINGS_TRANSACTION_TYPES[kind][0];
}

/** Whether a kind takes money out of the account (its `TransactionEntryType` is `DEBIT`). */
export function isSavingsDebit(kind: SavingsTransactionKind): boolean {
  return SAVINGS_TRANSACTION_TYPES[kind][1] === 'DEBIT';
}

/**
 * A savings transaction's `transactionType`: `SavingsAccountTransactionEnumData`, its flags set
 * from the id as its constructor sets them (the ones of types the stand-in never holds stay false).
 */
export function savingsTransactionType(kind: SavingsTransactionKind): Json {
  const [id, , value] = SAVINGS_TRANSACTION_TYPES[kind];
  return {
    id,
    code: `savingsAccountTransactionType.${kind}`,
    value,
    deposit: kind === 'deposit',
    dividendPayout: kind === 'dividendPayout',
    withdrawal: kind === 'withdrawal',
    interestPosting: kind === 'interestPosting',
    feeDeduction: kind === 'annualFee' || kind === 'withdrawalFee' || kind === 'payCharge',
  };
}

/** `LoanTransactionType` ids of the kinds served. */
const LOAN_TRANSACTION_IDS: Readonly<Record<LoanTransactionKind, number>> = {
  disbursement: 1,
  repayment: 2,
  merchantIssuedRefund: 21,
  payoutRefund: 22,
  goodwillCredit: 23,
  chargeRefund: 24,
  downPayment: 28,
  interestPaymentWaiver: 31,
};

/**
 * A loan transaction's `type` as `LoanTransactionEnumData` writes it: Gson writes every
 * boolean flag, `false` included; `interestPaymentWaiver` exists only where `behaviour` says.
 */
export function loanTransactionType(kind: LoanTransactionKind, behaviour: ReleaseBehaviour): Json {
  const flags = Object.fromEntries(
    LOAN_TRANSACTION_KINDS.filter((name) => name !== 'interestPaymentWaiver' || behaviour.interestPaymentWaiver).map(
      (name) => [name, name === kind],
    ),
  );
  return {
    id: LOAN_TRANSACTION_IDS[kind],
    code: `loanTransactionType.${kind}`,
    value: kind,
    ...flags,
    contra: false,
    waiveInterest: false,
    writeOff: false,
    accrual: false,
  };
}

export function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/**
 * The servlet's error page, as Spring Boot writes it for a JSON client: what Fineract's
 * security filters answer through `response.sendError` (an unknown tenant, a refused user),
 * not Fineract's own error body. Its exact form is Spring Boot's, not Fineract's source.
 */
export function servletError(status: number, error: string, path: string): Json {
  return { timestamp: new Date(0).toISOString(), status, error, path };
}
