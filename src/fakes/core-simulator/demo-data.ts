/**
 * The simulator's deterministic demo data set (documented in
 * docs/core-protocol.md, "Demo data"): a handful of named customers to try the
 * gateway by hand, plus a generated population of 900,000 customers for
 * benchmarks. Generated customers are computed from their number when asked
 * for, so start-up costs nothing and memory stays flat.
 */
import { NO_DATE, type AccountRecord } from '../../domain/account.js';
import {
  CombinedDirectory,
  ListDirectory,
  comparableBirthDay,
  normaliseSsn,
  type CoreCustomer,
  type CustomerDirectory,
  type Demographics,
} from './customers.js';

type Overrides = Partial<AccountRecord> &
  Pick<
    AccountRecord,
    'id' | 'customerKey' | 'guid' | 'nickname' | 'accountReferenceId' | 'type' | 'productCode' | 'originationDate'
  >;

function account(fields: Overrides): AccountRecord {
  return Object.freeze({
    id: fields.id,
    customerKey: fields.customerKey,
    guid: fields.guid,
    nickname: fields.nickname,
    accountReferenceId: fields.accountReferenceId,
    type: fields.type,
    currentBalance: fields.currentBalance ?? 0,
    availableBalance: fields.availableBalance ?? 0,
    interestRate: fields.interestRate ?? 0,
    accruedInterest: fields.accruedInterest ?? 0,
    yearToDateInterest: fields.yearToDateInterest ?? 0,
    paidYearToDateInterest: fields.paidYearToDateInterest ?? 0,
    pastDueAmount: fields.pastDueAmount ?? 0,
    creditLimit: fields.creditLimit ?? 0,
    availableCredit: fields.availableCredit ?? 0,
    originationDate: fields.originationDate,
    nextPaymentDate: fields.nextPaymentDate ?? NO_DATE,
    maturityDate: fields.maturityDate ?? NO_DATE,
    productCode: fields.productCode,
    isDefault: fields.isDefault ?? false,
    hasCard: fields.hasCard ?? false,
    receiveEmailNotices: fields.receiveEmailNotices ?? 'Y',
    receiveEmailStatements: fields.receiveEmailStatements ?? 'Y',
    receivePaperNotices: fields.receivePaperNotices ?? 'N',
    receivePaperStatements: fields.receivePaperStatements ?? 'N',
    authorizationCode: fields.authorizationCode ?? 'A',
    originalBalance: fields.originalBalance ?? 0,
  });
}

function customer(fields: Omit<CoreCustomer, 'accounts'>, accounts: AccountRecord[]): CoreCustomer {
  return Object.freeze({ ...fields, accounts: Object.freeze(accounts) });
}

/** The named demo customers. Their demographics are fictitious and fixed; tests and docs rely on them. */
export const DEMO_CUSTOMERS: readonly CoreCustomer[] = Object.freeze([
  // Ada: checking, savings and a credit card.
  customer(
    { customerKey: 'C-1001', socialSecurityNumber: '123-45-6789', accountNumber: '70001234', birthDay: '1980-04-12' },
    [
      account({
        id: '70001234-D01',
        customerKey: 'C-1001',
        guid: '3f6c1a52-8a0e-4c1e-9d7b-1b2f0c9a1001',
        nickname: 'Everyday Checking',
        accountReferenceId: 'AR-70001234-01',
        type: 'D',
        currentBalance: 2543.17,
        availableBalance: 2493.17,
        interestRate: 0.0005,
        accruedInterest: 0.11,
        yearToDateInterest: 0.38,
        paidYearToDateInterest: 0.27,
        originationDate: '2019-05-01T00:00:00',
        productCode: 'CHK-STD',
        isDefault: true,
        hasCard: true,
        originalBalance: 100,
      }),
      account({
        id: '70001234-S02',
        customerKey: 'C-1001',
        guid: '3f6c1a52-8a0e-4c1e-9d7b-1b2f0c9a1002',
        nickname: 'Rainy Day Savings',
        accountReferenceId: 'AR-70001234-02',
        type: 'S',
        currentBalance: 15820.4,
        availableBalance: 15820.4,
        interestRate: 0.0425,
        accruedInterest: 18.43,
        yearToDateInterest: 112.95,
        paidYearToDateInterest: 94.52,
        originationDate: '2019-05-01T00:00:00',
        productCode: 'SAV-HY',
        receivePaperStatements: 'Y',
        originalBalance: 5000,
      }),
      account({
        id: '70001234-C03',
        customerKey: 'C-1001',
        guid: '3f6c1a52-8a0e-4c1e-9d7b-1b2f0c9a1003',
        nickname: 'Platinum Card',
        accountReferenceId: 'AR-70001234-03',
        type: 'C',
        currentBalance: 1243.57,
        availableBalance: 3756.43,
        interestRate: 0.2199,
        accruedInterest: 7.49,
        yearToDateInterest: 41.2,
        paidYearToDateInterest: 33.71,
        creditLimit: 5000,
        availableCredit: 3756.43,
        originationDate: '2021-09-15T00:00:00',
        nextPaymentDate: '2026-03-25T00:00:00',
        productCode: 'CC-PLAT',
        hasCard: true,
      }),
    ],
  ),
  // Ben: checking and a mortgage.
  customer(
    { customerKey: 'C-1002', socialSecurityNumber: '234-56-7890', accountNumber: '70002345', birthDay: '1975-11-30' },
    [
      account({
        id: '70002345-D01',
        customerKey: 'C-1002',
        guid: '7b2d4e61-0c3f-4a8e-b5d2-2c3e1d0b2001',
        nickname: 'Joint Checking',
        accountReferenceId: 'AR-70002345-01',
        type: 'D',
        currentBalance: 4810.02,
        availableBalance: 4810.02,
        interestRate: 0,
        originationDate: '2008-02-11T00:00:00',
        productCode: 'CHK-STD',
        isDefault: true,
        hasCard: true,
        receiveEmailStatements: 'N',
        receivePaperStatements: 'Y',
        authorizationCode: 'J',
        originalBalance: 250,
      }),
      account({
        id: '70002345-M02',
        customerKey: 'C-1002',
        guid: '7b2d4e61-0c3f-4a8e-b5d2-2c3e1d0b2002',
        nickname: 'Home Loan',
        accountReferenceId: 'AR-70002345-02',
        type: 'M',
        currentBalance: 212877.36,
        availableBalance: 0,
        interestRate: 0.03875,
        accruedInterest: 458.9,
        yearToDateInterest: 1372.14,
        paidYearToDateInterest: 1372.14,
        originationDate: '2015-06-30T00:00:00',
        nextPaymentDate: '2026-04-01T00:00:00',
        maturityDate: '2045-07-01T00:00:00',
        productCode: 'MTG-30F',
        receivePaperNotices: 'Y',
        originalBalance: 320000,
      }),
    ],
  ),
  // Chloe (born on a leap day): savings and a certificate that matures.
  customer(
    { customerKey: 'C-1003', socialSecurityNumber: '345-67-8901', accountNumber: '70003456', birthDay: '1992-02-29' },
    [
      account({
        id: '70003456-S01',
        customerKey: 'C-1003',
        guid: '9a8b7c6d-5e4f-4a3b-8c2d-3e4f5a6b3001',
        nickname: 'Savings',
        accountReferenceId: 'AR-70003456-01',
        type: 'S',
        currentBalance: 932.5,
        availableBalance: 932.5,
        interestRate: 0.01,
        accruedInterest: 0.77,
        yearToDateInterest: 1.54,
        paidYearToDateInterest: 0.77,
        originationDate: '2023-01-09T00:00:00',
        productCode: 'SAV-STD',
        isDefault: true,
        originalBalance: 25,
      }),
      account({
        id: '70003456-T02',
        customerKey: 'C-1003',
        guid: '9a8b7c6d-5e4f-4a3b-8c2d-3e4f5a6b3002',
        nickname: '12-Month Certificate',
        accountReferenceId: 'AR-70003456-02',
        type: 'T',
        currentBalance: 10000,
        availableBalance: 0,
        interestRate: 0.048,
        accruedInterest: 39.45,
        yearToDateInterest: 78.9,
        paidYearToDateInterest: 39.45,
        originationDate: '2025-10-15T00:00:00',
        maturityDate: '2026-10-15T00:00:00',
        productCode: 'CD-12M',
        receiveEmailNotices: 'N',
        originalBalance: 10000,
      }),
    ],
  ),
  // Dev: one car loan, a payment past due.
  customer(
    { customerKey: 'C-1004', socialSecurityNumber: '456-78-9012', accountNumber: '70004567', birthDay: '1968-07-04' },
    [
      account({
        id: '70004567-L01',
        customerKey: 'C-1004',
        guid: 'c1d2e3f4-a5b6-4c7d-8e9f-4a5b6c7d4001',
        nickname: 'Auto Loan',
        accountReferenceId: 'AR-70004567-01',
        type: 'L',
        currentBalance: 14211.9,
        availableBalance: 0,
        interestRate: 0.0649,
        accruedInterest: 76.81,
        yearToDateInterest: 151.66,
        paidYearToDateInterest: 74.85,
        pastDueAmount: 412.37,
        originationDate: '2023-08-20T00:00:00',
        nextPaymentDate: '2026-02-20T00:00:00',
        maturityDate: '2028-08-20T00:00:00',
        productCode: 'AUTO-60',
        isDefault: true,
        receivePaperNotices: 'Y',
        receivePaperStatements: 'Y',
        receiveEmailNotices: 'N',
        receiveEmailStatements: 'N',
        originalBalance: 24000,
      }),
    ],
  ),
  // Eve: a customer of the bank without any account.
  customer(
    { customerKey: 'C-1005', socialSecurityNumber: '567-89-0123', accountNumber: '70005678', birthDay: '2001-01-15' },
    [],
  ),
]);

/** Numbers of the generated customers: `C-100000` … `C-999999`. */
export const GENERATED_CUSTOMERS = Object.freeze({ first: 100_000, last: 999_999 });

/** A small deterministic PRNG (mulberry32): the same customer number always gives the same accounts. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const money = (value: number) => Math.round(value * 100) / 100;
const pad = (value: number, width: number) => String(value).padStart(width, '0');

function dateFromDays(epochDays: number): string {
  return new Date(epochDays * 86_400_000).toISOString().slice(0, 10);
}

const DAYS_1940 = Date.UTC(1940, 0, 1) / 86_400_000;
const DAYS_2005 = Date.UTC(2005, 0, 1) / 86_400_000;

/** The demographics of generated customer `n`, documented so benchmarks can compute them. */
export function generatedDemographics(n: number): Demographics & { customerKey: string } {
  return {
    customerKey: `C-${n}`,
    // 900-xx-xxxx: never a valid SSN, so no real person's number.
    socialSecurityNumber: `900-${pad(Math.floor(n / 10_000), 2)}-${pad(n % 10_000, 4)}`,
    accountNumber: `60${n}`,
    birthDay: dateFromDays(DAYS_1940 + ((n * 7919) % 21_915)),
  };
}

function generatedAccount(n: number, index: number): AccountRecord {
  const random = prng(n * 8 + index);
  const customerKey = `C-${n}`;
  const kinds = ['D', 'S', 'C', 'L'] as const;
  const type = kinds[(n + index) % kinds.length]!;
  const opened = dateFromDays(DAYS_2005 + Math.floor(random() * 7300));
  const base = {
    id: `60${n}-${type}${pad(index + 1, 2)}`,
    customerKey,
    guid: `00000000-0000-4000-8000-${pad(n, 8)}${pad(index, 4)}`,
    accountReferenceId: `AR-60${n}-${pad(index + 1, 2)}`,
    type,
    originationDate: `${opened}T00:00:00`,
    isDefault: index === 0,
  };
  switch (type) {
    case 'D': {
      const balance = money(50 + random() * 15_000);
      return account({
        ...base,
        nickname: 'Checking',
        productCode: 'CHK-STD',
        currentBalance: balance,
        availableBalance: balance,
        interestRate: 0.0005,
        hasCard: true,
        originalBalance: 100,
      });
    }
    case 'S': {
      const balance = money(random() * 60_000);
      const ytd = money(balance * 0.035 * 0.2);
      return account({
        ...base,
        nickname: 'Savings',
        productCode: 'SAV-HY',
        currentBalance: balance,
        availableBalance: balance,
        interestRate: 0.035,
        accruedInterest: money((balance * 0.035) / 12),
        yearToDateInterest: ytd,
        paidYearToDateInterest: ytd,
        originalBalance: 25,
      });
    }
    case 'C': {
      const limit = 1000 * (1 + Math.floor(random() * 20));
      const balance = money(random() * limit * 0.8);
      return account({
        ...base,
        nickname: 'Credit Card',
        productCode: 'CC-STD',
        currentBalance: balance,
        availableBalance: money(limit - balance),
        interestRate: 0.1999,
        accruedInterest: money((balance * 0.1999) / 12),
        creditLimit: limit,
        availableCredit: money(limit - balance),
        nextPaymentDate: '2026-04-15T00:00:00',
        hasCard: true,
      });
    }
    default: {
      const original = 1000 * (5 + Math.floor(random() * 36));
      const balance = money(original * (0.2 + random() * 0.75));
      return account({
        ...base,
        nickname: 'Personal Loan',
        productCode: 'LOAN-60',
        currentBalance: balance,
        interestRate: 0.0799,
        accruedInterest: money((balance * 0.0799) / 12),
        pastDueAmount: n % 50 === 0 ? money(original / 60) : 0,
        nextPaymentDate: '2026-04-01T00:00:00',
        maturityDate: `${Number(opened.slice(0, 4)) + 5}${opened.slice(4).replace('-02-29', '-02-28')}T00:00:00`,
        originalBalance: original,
      });
    }
  }
}

/** Generated customer `n` with its 1–3 accounts, or undefined outside the range. */
export function generatedCustomer(n: number): CoreCustomer | undefined {
  if (!Number.isInteger(n) || n < GENERATED_CUSTOMERS.first || n > GENERATED_CUSTOMERS.last) return undefined;
  const accounts = Array.from({ length: 1 + (n % 3) }, (_, index) => generatedAccount(n, index));
  return customer(generatedDemographics(n), accounts);
}

/** The generated population as a directory: lookups compute the customer from its number. */
const generatedDirectory: CustomerDirectory = {
  description: `generated customers C-${GENERATED_CUSTOMERS.first}…C-${GENERATED_CUSTOMERS.last}`,
  byKey(customerKey) {
    const match = /^C-(\d{6})$/.exec(customerKey);
    return match ? generatedCustomer(Number(match[1])) : undefined;
  },
  byDemographics(demographics) {
    const match = /^900(\d{6})$/.exec(normaliseSsn(demographics.socialSecurityNumber));
    if (!match) return undefined;
    const n = Number(match[1]);
    if (n < GENERATED_CUSTOMERS.first) return undefined;
    const expected = generatedDemographics(n);
    if (
      demographics.accountNumber.trim() !== expected.accountNumber ||
      comparableBirthDay(demographics.birthDay) !== expected.birthDay
    )
      return undefined;
    return generatedCustomer(n);
  },
};

/** The whole demo data set: the named customers, then the generated population. */
export function demoDirectory(): CustomerDirectory {
  return new CombinedDirectory([
    new ListDirectory(DEMO_CUSTOMERS, `${DEMO_CUSTOMERS.length} named demo customers`),
    generatedDirectory,
  ]);
}
