/**
 * What the Fineract stand-in serves (docs/cores/fineract.md#stand-in): clients with their
 * identifiers, savings and loan accounts, in a compact form that the stand-in renders to
 * Fineract's real wire shape. The demo data set mirrors the simulator's named customers
 * (docs/core-protocol.md, "Demo data"): the same demographics and account numbers, the
 * accounts re-cast as Fineract products.
 */

import { everydayHistory } from './demo-history.js';

/** A date as Fineract writes it. */
export type WireDate = readonly [number, number, number];

interface StandInIdentifier {
  /** The document type's name, e.g. `SSN`. */
  readonly documentType: string;
  readonly documentKey: string;
  readonly active: boolean;
}

/** The `SavingsAccountTransactionType`s the stand-in holds, by their code's last part. */
export const SAVINGS_TRANSACTION_KINDS = [
  'deposit',
  'withdrawal',
  'interestPosting',
  'withdrawalFee',
  'annualFee',
  'payCharge',
  'dividendPayout',
] as const;

interface StandInSavingsTransaction {
  readonly id: number;
  readonly kind: (typeof SAVINGS_TRANSACTION_KINDS)[number];
  readonly date: WireDate;
  readonly amount: number;
  readonly reversed?: boolean;
  /** One leg of an account transfer: the row carries `transfer` (`m_account_transfer_transaction`). */
  readonly transfer?: { readonly id: number; readonly description: string };
}

export interface StandInSavings {
  readonly id: number;
  readonly accountNo: string;
  readonly externalId?: string;
  readonly productName: string;
  readonly shortProductName: string;
  /** 100 savings (a current account is one with overdraft), 200 fixed deposit, 300 recurring deposit. */
  readonly depositType: 100 | 200 | 300;
  readonly status: 'active' | 'closed' | 'submitted';
  readonly submittedOn: WireDate;
  readonly activatedOn?: WireDate;
  /** Percent, as Fineract writes it. */
  readonly nominalAnnualInterestRate: number;
  readonly accountBalance: number;
  readonly availableBalance?: number;
  readonly interestNotPosted?: number;
  /** An overdraft; with no limit (or 0) Fineract leaves `overdraftLimit` out. Set when a limit is. */
  readonly allowOverdraft?: boolean;
  readonly overdraftLimit?: number;
  readonly transactions: readonly StandInSavingsTransaction[];
  /** Fixed and recurring deposits. */
  readonly maturityDate?: WireDate;
  readonly depositAmount?: number;
}

/**
 * Loan transaction types the stand-in serves: the disbursement, and those
 * `LoanTransactionType.isRepaymentType()` counts (`interestPaymentWaiver` since develop).
 */
export const LOAN_TRANSACTION_KINDS = [
  'disbursement',
  'repayment',
  'merchantIssuedRefund',
  'payoutRefund',
  'goodwillCredit',
  'chargeRefund',
  'downPayment',
  'interestPaymentWaiver',
] as const;

interface StandInLoanTransaction {
  readonly id: number;
  readonly kind: (typeof LOAN_TRANSACTION_KINDS)[number];
  readonly date: WireDate;
  readonly amount: number;
  readonly interestPortion?: number;
  readonly manuallyReversed?: boolean;
}

export interface StandInLoan {
  readonly id: number;
  readonly accountNo: string;
  readonly externalId?: string;
  readonly productName: string;
  readonly shortProductName: string;
  readonly status: 'active' | 'closed' | 'submitted';
  readonly submittedOn: WireDate;
  readonly disbursedOn?: WireDate;
  readonly expectedMaturityDate: WireDate;
  /** Percent. */
  readonly annualInterestRate: number;
  readonly principal: number;
  readonly totalOutstanding: number;
  readonly totalOverdue?: number;
  /** Repayment periods in order: their due dates and whether each is complete. */
  readonly periods: readonly { readonly dueDate: WireDate; readonly complete: boolean }[];
  readonly transactions: readonly StandInLoanTransaction[];
}

export interface StandInClient {
  readonly id: number;
  readonly externalId?: string;
  readonly mobileNo?: string;
  readonly firstname: string;
  readonly lastname: string;
  readonly active: boolean;
  readonly dateOfBirth?: WireDate;
  readonly identifiers: readonly StandInIdentifier[];
  readonly savings: readonly StandInSavings[];
  readonly loans: readonly StandInLoan[];
}

const ssn = (documentKey: string): StandInIdentifier => ({ documentType: 'SSN', documentKey, active: true });

/** Demo clients: Ada, Ben, Chloe, Dev and Eve of the simulator, as Fineract clients 1 to 5, plus a closed client. */
export const DEMO_CLIENTS: readonly StandInClient[] = Object.freeze([
  {
    id: 1,
    externalId: 'C-1001',
    firstname: 'Ada',
    lastname: 'Lovelace',
    active: true,
    dateOfBirth: [1980, 4, 12],
    identifiers: [ssn('123-45-6789'), { documentType: 'Passport', documentKey: 'P-0412-1980', active: true }],
    savings: [
      {
        id: 11,
        accountNo: '70001234',
        productName: 'Everyday Current',
        shortProductName: 'CUR1',
        depositType: 100,
        status: 'active',
        submittedOn: [2019, 4, 28],
        activatedOn: [2019, 5, 1],
        nominalAnnualInterestRate: 0.05,
        accountBalance: 2543.17,
        availableBalance: 2493.17,
        interestNotPosted: 0.11,
        overdraftLimit: 500,
        transactions: [
          { id: 1101, kind: 'deposit', date: [2019, 5, 1], amount: 100 },
          { id: 1102, kind: 'interestPosting', date: [2025, 12, 31], amount: 0.31 },
          { id: 1103, kind: 'interestPosting', date: [2026, 1, 31], amount: 0.19 },
          { id: 1104, kind: 'interestPosting', date: [2026, 2, 28], amount: 0.19 },
          ...everydayHistory(),
        ],
      },
      {
        id: 12,
        accountNo: '70001235',
        externalId: '3f6c1a52-8a0e-4c1e-9d7b-1b2f0c9a1002',
        productName: 'High Yield Savings',
        shortProductName: 'SAVH',
        depositType: 100,
        status: 'active',
        submittedOn: [2019, 5, 1],
        activatedOn: [2019, 5, 1],
        nominalAnnualInterestRate: 4.25,
        accountBalance: 15820.4,
        interestNotPosted: 18.43,
        transactions: [
          { id: 1201, kind: 'deposit', date: [2019, 5, 1], amount: 5000 },
          { id: 1202, kind: 'interestPosting', date: [2025, 12, 31], amount: 55.2 },
          { id: 1203, kind: 'interestPosting', date: [2026, 1, 31], amount: 56.1 },
          { id: 1204, kind: 'interestPosting', date: [2026, 2, 10], amount: 10, reversed: true },
          { id: 1205, kind: 'interestPosting', date: [2026, 2, 28], amount: 56.85 },
          { id: 1206, kind: 'withdrawal', date: [2026, 2, 14], amount: 200 },
          // A fee, a charge, a dividend and both legs' kinds of a transfer: every other type the search is asked for.
          { id: 1207, kind: 'annualFee', date: [2026, 1, 5], amount: 25 },
          { id: 1208, kind: 'withdrawalFee', date: [2026, 2, 14], amount: 1.5 },
          { id: 1209, kind: 'payCharge', date: [2026, 1, 12], amount: 4 },
          { id: 1210, kind: 'dividendPayout', date: [2026, 1, 20], amount: 12.5 },
          {
            id: 1211,
            kind: 'deposit',
            date: [2026, 2, 3],
            amount: 300,
            transfer: { id: 71, description: 'from current account' },
          },
          {
            id: 1212,
            kind: 'withdrawal',
            date: [2026, 2, 20],
            amount: 80,
            transfer: { id: 72, description: 'to current account' },
          },
        ],
      },
    ],
    loans: [
      {
        id: 21,
        accountNo: '80001001',
        productName: 'Personal Loan 36',
        shortProductName: 'PL36',
        status: 'active',
        submittedOn: [2025, 9, 1],
        disbursedOn: [2025, 9, 15],
        expectedMaturityDate: [2028, 9, 15],
        annualInterestRate: 9.9,
        principal: 6000,
        totalOutstanding: 5120.44,
        periods: [
          { dueDate: [2025, 10, 15], complete: true },
          { dueDate: [2025, 11, 15], complete: true },
          { dueDate: [2025, 12, 15], complete: true },
          { dueDate: [2026, 1, 15], complete: true },
          { dueDate: [2026, 2, 15], complete: true },
          { dueDate: [2026, 3, 15], complete: false },
          { dueDate: [2026, 4, 15], complete: false },
        ],
        transactions: [
          { id: 2101, kind: 'disbursement', date: [2025, 9, 15], amount: 6000 },
          { id: 2102, kind: 'repayment', date: [2025, 12, 15], amount: 193.32, interestPortion: 45.4 },
          { id: 2103, kind: 'repayment', date: [2026, 1, 15], amount: 193.32, interestPortion: 44.2 },
          { id: 2104, kind: 'repayment', date: [2026, 2, 15], amount: 193.32, interestPortion: 43.05 },
          // Entered twice by mistake and reversed by hand: listed with `manuallyReversed`.
          {
            id: 2105,
            kind: 'repayment',
            date: [2026, 2, 15],
            amount: 193.32,
            interestPortion: 43.05,
            manuallyReversed: true,
          },
        ],
      },
    ],
  },
  {
    id: 2,
    externalId: 'C-1002',
    firstname: 'Ben',
    lastname: 'Okafor',
    active: true,
    dateOfBirth: [1975, 11, 30],
    identifiers: [ssn('234567890')],
    savings: [
      {
        id: 13,
        accountNo: '70002345',
        productName: 'Basic Savings',
        shortProductName: 'SAV1',
        depositType: 100,
        status: 'active',
        submittedOn: [2008, 2, 11],
        activatedOn: [2008, 2, 11],
        nominalAnnualInterestRate: 0,
        accountBalance: 4810.02,
        transactions: [{ id: 1301, kind: 'deposit', date: [2008, 2, 11], amount: 250 }],
      },
    ],
    loans: [
      {
        id: 22,
        accountNo: '80002001',
        externalId: '7b2d4e61-0c3f-4a8e-b5d2-2c3e1d0b2002',
        productName: 'Home Loan 30 Fixed',
        shortProductName: 'MTG3',
        status: 'active',
        submittedOn: [2015, 6, 1],
        disbursedOn: [2015, 6, 30],
        expectedMaturityDate: [2045, 7, 1],
        annualInterestRate: 3.875,
        principal: 320000,
        totalOutstanding: 212877.36,
        periods: [
          { dueDate: [2026, 2, 1], complete: true },
          { dueDate: [2026, 3, 1], complete: true },
          { dueDate: [2026, 4, 1], complete: false },
        ],
        transactions: [
          { id: 2201, kind: 'disbursement', date: [2015, 6, 30], amount: 320000 },
          { id: 2202, kind: 'repayment', date: [2026, 2, 1], amount: 1504.75, interestPortion: 686.07 },
          { id: 2203, kind: 'repayment', date: [2026, 3, 1], amount: 1504.75, interestPortion: 686.07 },
        ],
      },
      {
        id: 23,
        accountNo: '80002002',
        productName: 'Car Loan 48',
        shortProductName: 'CAR4',
        status: 'closed',
        submittedOn: [2010, 1, 5],
        disbursedOn: [2010, 1, 10],
        expectedMaturityDate: [2014, 1, 10],
        annualInterestRate: 6.5,
        principal: 18000,
        totalOutstanding: 0,
        periods: [],
        transactions: [],
      },
    ],
  },
  {
    id: 3,
    externalId: 'C-1003',
    firstname: 'Chloe',
    lastname: 'Martin',
    active: true,
    dateOfBirth: [1992, 2, 29],
    identifiers: [ssn('345-67-8901')],
    savings: [
      {
        id: 14,
        accountNo: '70003456',
        productName: 'Basic Savings',
        shortProductName: 'SAV1',
        depositType: 100,
        status: 'active',
        submittedOn: [2023, 1, 9],
        activatedOn: [2023, 1, 9],
        nominalAnnualInterestRate: 1,
        accountBalance: 932.5,
        interestNotPosted: 0.77,
        transactions: [
          { id: 1401, kind: 'deposit', date: [2023, 1, 9], amount: 25 },
          { id: 1402, kind: 'interestPosting', date: [2026, 1, 31], amount: 0.77 },
        ],
      },
      {
        id: 15,
        accountNo: '70003457',
        productName: '12-Month Fixed Deposit',
        shortProductName: 'FD12',
        depositType: 200,
        status: 'active',
        submittedOn: [2025, 10, 14],
        activatedOn: [2025, 10, 15],
        nominalAnnualInterestRate: 4.8,
        accountBalance: 10000,
        availableBalance: 0,
        maturityDate: [2026, 10, 15],
        depositAmount: 10000,
        transactions: [{ id: 1501, kind: 'deposit', date: [2025, 10, 15], amount: 10000 }],
      },
      {
        id: 16,
        accountNo: '70003458',
        productName: '24-Month Recurring Deposit',
        shortProductName: 'RD24',
        depositType: 300,
        status: 'active',
        submittedOn: [2025, 6, 1],
        activatedOn: [2025, 6, 1],
        nominalAnnualInterestRate: 3.5,
        accountBalance: 900,
        maturityDate: [2027, 6, 1],
        depositAmount: 100,
        transactions: [{ id: 1601, kind: 'deposit', date: [2025, 6, 1], amount: 100 }],
      },
    ],
    loans: [],
  },
  {
    id: 4,
    externalId: 'C-1004',
    firstname: 'Dev',
    lastname: 'Patel',
    active: true,
    dateOfBirth: [1968, 7, 4],
    identifiers: [ssn('456-78-9012')],
    savings: [],
    loans: [
      {
        id: 24,
        accountNo: '70004567',
        productName: 'Auto Loan 60',
        shortProductName: 'AUT6',
        status: 'active',
        submittedOn: [2023, 8, 10],
        disbursedOn: [2023, 8, 20],
        expectedMaturityDate: [2028, 8, 20],
        annualInterestRate: 6.49,
        principal: 24000,
        totalOutstanding: 14211.9,
        totalOverdue: 412.37,
        periods: [
          { dueDate: [2026, 1, 20], complete: true },
          { dueDate: [2026, 2, 20], complete: false },
          { dueDate: [2026, 3, 20], complete: false },
        ],
        transactions: [
          { id: 2401, kind: 'disbursement', date: [2023, 8, 20], amount: 24000 },
          { id: 2402, kind: 'repayment', date: [2025, 12, 20], amount: 469.5, interestPortion: 79.2 },
          { id: 2403, kind: 'repayment', date: [2026, 1, 20], amount: 469.5, interestPortion: 74.85 },
          {
            id: 2404,
            kind: 'repayment',
            date: [2026, 2, 3],
            amount: 469.5,
            interestPortion: 77,
            manuallyReversed: true,
          },
        ],
      },
    ],
  },
  {
    id: 5,
    externalId: 'C-1005',
    firstname: 'Eve',
    lastname: 'Nakamura',
    active: true,
    dateOfBirth: [2001, 1, 15],
    identifiers: [ssn('567-89-0123')],
    savings: [
      {
        id: 17,
        accountNo: '70005678',
        productName: 'Basic Savings',
        shortProductName: 'SAV1',
        depositType: 100,
        status: 'closed',
        submittedOn: [2020, 3, 1],
        activatedOn: [2020, 3, 1],
        nominalAnnualInterestRate: 1,
        accountBalance: 0,
        transactions: [],
      },
    ],
    loans: [],
  },
  {
    id: 6,
    externalId: 'C-1006',
    firstname: 'Finn',
    lastname: 'Closed',
    active: false,
    dateOfBirth: [1959, 9, 9],
    identifiers: [ssn('678-90-1234')],
    savings: [],
    loans: [],
  },
]);
