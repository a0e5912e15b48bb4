/**
 * Fineract accounts as account records (docs/cores/fineract.md#mapping): the mapping as pure
 * functions of Fineract's answers and coregate's clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  dateTime,
  ForeignAccount,
  loanRecord,
  readClientAccounts,
  readTermDeposit,
  savingsRecord,
  type ListedAccount,
  type MappingContext,
} from '../../src/adapters/core/fineract/account-mapping.js';
import { MalformedAnswer } from '../../src/adapters/core/fineract/answer-reader.js';
import { URL_NAMESPACE, uuidV5 } from '../../src/adapters/core/fineract/uuid-v5.js';
import { NO_DATE } from '../../src/domain/account.js';
import { readAccountRecord, type Problem } from '../../src/adapters/core/account-record.js';

const context = (now = '2026-03-01T12:00:00Z'): MappingContext => ({
  clientId: '42',
  customerKey: '42',
  tenant: 'default',
  now: new Date(now),
});
const listed = (fields: Partial<ListedAccount> = {}): ListedAccount => ({
  id: '7',
  accountNo: '000000007',
  shortProductName: 'SAV1',
  active: true,
  depositType: 100,
  ...fields,
});

function savings(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 7,
    clientId: 42,
    nominalAnnualInterestRate: 5.5,
    timeline: { submittedOnDate: [2024, 2, 28], activatedOnDate: [2024, 3, 1] },
    summary: { accountBalance: 100.5, availableBalance: 90.5, interestNotPosted: 1.25 },
    ...fields,
  };
}

function loan(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 9,
    clientId: 42,
    annualInterestRate: 7.25,
    principal: 1000,
    timeline: {
      submittedOnDate: [2025, 1, 2],
      actualDisbursementDate: [2025, 1, 10],
      expectedMaturityDate: [2027, 1, 10],
    },
    summary: { totalOutstanding: 800, principalDisbursed: 1000, totalOverdue: 12.5 },
    ...fields,
  };
}

const posting = (date: number[], amount: number, extra: Record<string, unknown> = {}) => ({
  transactionType: { interestPosting: true, deposit: false },
  date,
  amount,
  reversed: false,
  ...extra,
});
const repayment = (date: number[], interestPortion: number, extra: Record<string, unknown> = {}) => ({
  type: { repayment: true },
  date,
  amount: 100,
  interestPortion,
  manuallyReversed: false,
  ...extra,
});

function valid(record: unknown): void {
  const problems: Problem[] = [];
  assert.ok(readAccountRecord(record, 'record', problems, 'reject'), JSON.stringify(problems));
}

describe('Fineract account mapping', () => {
  it('writes [y, m, d] as YYYY-MM-DDT00:00:00 and no date as the minimum date-time', () => {
    assert.equal(dateTime({ year: 2024, month: 3, day: 1 }), '2024-03-01T00:00:00');
    assert.equal(dateTime({ year: 987, month: 12, day: 31 }), '0987-12-31T00:00:00');
    assert.equal(dateTime(undefined), NO_DATE);
  });

  it('maps a savings account field by field, interest rates as fractions', () => {
    const record = savingsRecord(listed(), savings(), undefined, context());
    valid(record);
    assert.deepEqual(record, {
      id: 'savings-7',
      customerKey: '42',
      guid: uuidV5('fineract:default:savings:7', URL_NAMESPACE),
      nickname: '',
      accountReferenceId: '000000007',
      type: 'S',
      currentBalance: 100.5,
      availableBalance: 90.5,
      interestRate: 0.055,
      accruedInterest: 1.25,
      yearToDateInterest: 0,
      paidYearToDateInterest: 0,
      pastDueAmount: 0,
      creditLimit: 0,
      availableCredit: 0,
      originationDate: '2024-03-01T00:00:00',
      nextPaymentDate: NO_DATE,
      maturityDate: NO_DATE,
      productCode: 'SAV1',
      originalBalance: 0,
      isDefault: false,
      hasCard: false,
      receiveEmailNotices: 'N',
      receiveEmailStatements: 'N',
      receivePaperNotices: 'N',
      receivePaperStatements: 'N',
      authorizationCode: 'A',
    });
  });

  it('takes the account balance when Fineract gives no available balance, and the submitted date before activation', () => {
    const record = savingsRecord(
      listed(),
      savings({ summary: { accountBalance: 12 }, timeline: { submittedOnDate: [2024, 2, 28] } }),
      undefined,
      context(),
    );
    assert.equal(record.availableBalance, 12);
    assert.equal(record.accruedInterest, 0);
    assert.equal(record.originationDate, '2024-02-28T00:00:00');
  });

  it('uses the externalId as guid when set; else a UUID v5 per tenant, kind and id', () => {
    assert.equal(savingsRecord(listed(), savings({ externalId: 'ext-7' }), undefined, context()).guid, 'ext-7');
    assert.equal(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '886313e1-3b8a-5372-9b90-0c9aee199e5d');
    assert.equal(uuidV5('fineract:default:savings:1', URL_NAMESPACE), '457ca5a2-cfd9-5248-80ca-f99f16ea4db3');
    const other = savingsRecord(listed(), savings(), undefined, { ...context(), tenant: 'bank2' }).guid;
    assert.notEqual(other, uuidV5('fineract:default:savings:7', URL_NAMESPACE));
    assert.notEqual(
      loanRecord(listed({ id: '7' }), loan(), context()).guid,
      savingsRecord(listed(), savings(), undefined, context()).guid,
    );
  });

  it('maps each deposit type to its letter, a savings product with overdraft to D, with a term deposit’s maturity and deposit amount', () => {
    const term = readTermDeposit({ clientId: 42, maturityDate: [2027, 6, 1], depositAmount: 5000 }, context());
    const records = [
      savingsRecord(listed({ depositType: 100 }), savings(), undefined, context()),
      savingsRecord(listed({ depositType: 100 }), savings({ allowOverdraft: true }), undefined, context()),
      savingsRecord(listed({ depositType: 200 }), savings(), term, context()),
      savingsRecord(listed({ depositType: 300 }), savings(), term, context()),
    ];
    assert.deepEqual(
      records.map((record) => record.type),
      ['S', 'D', 'T', 'R'],
    );
    assert.equal(records[2]!.maturityDate, '2027-06-01T00:00:00');
    assert.equal(records[2]!.originalBalance, 5000);
    assert.equal(records[0]!.maturityDate, NO_DATE);
    assert.equal(records[1]!.originalBalance, 0);
    const noMaturity = savingsRecord(
      listed({ depositType: 300 }),
      savings(),
      readTermDeposit({ clientId: 42 }, context()),
      context(),
    );
    assert.equal(noMaturity.maturityDate, NO_DATE);
    assert.equal(noMaturity.originalBalance, 0);
  });

  it('refuses deposit type 400, which no Fineract account takes', () => {
    assert.throws(
      () =>
        readClientAccounts({
          savingsAccounts: [{ id: 1, accountNo: '1', status: { active: true }, depositType: { id: 400 } }],
        }),
      /^MalformedAnswer: savingsAccounts\[0\]\.depositType\.id: expected 100, 200 or 300$/,
    );
  });

  it('takes a term deposit’s interest postings from its own answer, not the savings answer (deposit type 100 only)', () => {
    const term = readTermDeposit(
      { clientId: 42, transactions: [posting([2026, 1, 31], 4), posting([2025, 12, 31], 9)] },
      context(),
    );
    assert.equal(term.interestPosted, 4);
    const record = savingsRecord(
      listed({ depositType: 200 }),
      savings({ transactions: [posting([2026, 1, 31], 100)] }),
      term,
      context(),
    );
    assert.deepEqual([record.yearToDateInterest, record.paidYearToDateInterest], [4, 4]);
  });

  it('gives an overdraft its limit and what is left of it, never below 0', () => {
    const at = (accountBalance: number) =>
      savingsRecord(
        listed(),
        savings({ allowOverdraft: true, overdraftLimit: 500, summary: { accountBalance } }),
        undefined,
        context(),
      );
    assert.deepEqual([at(250).creditLimit, at(250).availableCredit], [500, 500]);
    assert.deepEqual([at(-120).creditLimit, at(-120).availableCredit], [500, 380]);
    assert.equal(at(-800).availableCredit, 0);
    const none = savingsRecord(listed(), savings({ allowOverdraft: false, overdraftLimit: 500 }), undefined, context());
    assert.deepEqual([none.creditLimit, none.availableCredit], [0, 0]);
  });

  it('reads an overdraft without a limit (Fineract leaves a limit of 0 out) as a credit limit of 0', () => {
    const record = savingsRecord(
      listed(),
      savings({ allowOverdraft: true, summary: { accountBalance: -20 } }),
      undefined,
      context(),
    );
    valid(record);
    assert.deepEqual([record.type, record.creditLimit, record.availableCredit], ['D', 0, 0]);
  });

  it('sums this year’s interest postings on coregate’s clock in UTC, leaving out reversed ones', () => {
    const transactions = [
      posting([2025, 12, 31], 10),
      posting([2026, 1, 1], 1.5),
      posting([2026, 2, 28], 2.25),
      posting([2026, 2, 10], 100, { reversed: true }),
      { transactionType: { deposit: true }, date: [2026, 1, 5], amount: 1000, reversed: false },
    ];
    const record = savingsRecord(listed(), savings({ transactions }), undefined, context('2026-03-01T12:00:00Z'));
    assert.equal(record.yearToDateInterest, 3.75);
    assert.equal(record.paidYearToDateInterest, 3.75);
    // New Year's Eve in New York is already the new year in UTC: 2026's postings count.
    assert.equal(
      savingsRecord(listed(), savings({ transactions }), undefined, context('2026-01-01T02:00:00Z')).yearToDateInterest,
      3.75,
    );
    assert.equal(
      savingsRecord(listed(), savings({ transactions }), undefined, context('2025-12-31T23:59:59Z')).yearToDateInterest,
      10,
    );
  });

  it('maps a loan: outstanding, overdue, the rate, this year’s paid interest and the next due date', () => {
    const record = loanRecord(
      listed({ id: '9', accountNo: 'L-9', shortProductName: 'PL36', depositType: undefined }),
      loan({
        repaymentSchedule: {
          periods: [
            { dueDate: [2025, 1, 10], principalDisbursed: 1000 },
            { period: 1, dueDate: [2025, 2, 10], complete: true },
            { period: 2, dueDate: [2025, 3, 10], complete: false },
            { period: 3, dueDate: [2025, 4, 10], complete: false },
          ],
        },
        transactions: [
          { type: { disbursement: true }, date: [2025, 1, 10], amount: 1000, manuallyReversed: false },
          repayment([2025, 12, 10], 9),
          repayment([2026, 1, 10], 5.5),
          repayment([2026, 2, 10], 4.25),
          repayment([2026, 2, 11], 50, { manuallyReversed: true }),
          { type: { repayment: true }, date: [2026, 2, 12], amount: 20, manuallyReversed: false },
        ],
      }),
      context(),
    );
    valid(record);
    assert.equal(record.id, 'loan-9');
    assert.equal(record.type, 'L');
    assert.equal(record.accountReferenceId, 'L-9');
    assert.equal(record.currentBalance, 800);
    assert.equal(record.availableBalance, 0);
    assert.equal(record.interestRate, 0.0725);
    assert.equal(record.pastDueAmount, 12.5);
    assert.equal(record.paidYearToDateInterest, 9.75);
    assert.equal(record.yearToDateInterest, 9.75);
    assert.equal(record.originationDate, '2025-01-10T00:00:00');
    assert.equal(record.nextPaymentDate, '2025-03-10T00:00:00');
    assert.equal(record.maturityDate, '2027-01-10T00:00:00');
    assert.equal(record.originalBalance, 1000);
    assert.equal(record.productCode, 'PL36');
  });

  it('counts the interest of every transaction type Fineract counts as a repayment (LoanTransactionType.isRepaymentType)', () => {
    const paid = (type: Record<string, boolean>) =>
      loanRecord(
        listed({ id: '9', depositType: undefined }),
        loan({ transactions: [{ type, date: [2026, 2, 1], interestPortion: 3, manuallyReversed: false }] }),
        context(),
      ).paidYearToDateInterest;
    for (const name of [
      'repayment',
      'merchantIssuedRefund',
      'payoutRefund',
      'goodwillCredit',
      'chargeRefund',
      'downPayment',
      'interestPaymentWaiver',
    ])
      assert.equal(paid({ [name]: true, repayment: name === 'repayment' }), 3, name);
    for (const name of ['disbursement', 'accrual', 'waiveInterest', 'recoveryRepayment', 'chargeback'])
      assert.equal(paid({ [name]: true, repayment: false }), 0, name);
  });

  it('gives a loan without open periods no next payment date, and falls back to principal and the submitted date', () => {
    const record = loanRecord(
      listed({ id: '9', depositType: undefined }),
      loan({
        timeline: { submittedOnDate: [2025, 1, 2] },
        summary: { totalOutstanding: 1000 },
        repaymentSchedule: { periods: [{ period: 1, dueDate: [2025, 2, 10], complete: true }] },
      }),
      context(),
    );
    assert.equal(record.nextPaymentDate, NO_DATE);
    assert.equal(record.maturityDate, NO_DATE);
    assert.equal(record.originationDate, '2025-01-02T00:00:00');
    assert.equal(record.originalBalance, 1000);
    assert.equal(record.pastDueAmount, 0);
  });

  it('reads the accounts list; absent lists are empty', () => {
    assert.deepEqual(readClientAccounts({}), { savings: [], loans: [] });
    const accounts = readClientAccounts({
      savingsAccounts: [
        { id: 1, accountNo: '1', shortProductName: 'S', status: { active: true }, depositType: { id: 200 } },
        { id: 2, accountNo: '2', status: { active: false, closed: true }, depositType: { id: 100 } },
      ],
      loanAccounts: [{ id: 3, accountNo: '3', status: { active: true } }],
    });
    assert.deepEqual(
      accounts.savings.map((account) => [account.id, account.active, account.depositType]),
      [
        ['1', true, 200],
        ['2', false, 100],
      ],
    );
    assert.equal(accounts.loans[0]!.shortProductName, '');
  });

  it('names the path and field of a malformed answer, never its value', () => {
    const cases: [() => unknown, RegExp][] = [
      [
        () => savingsRecord(listed(), savings({ summary: undefined }), undefined, context()),
        /^summary: expected an object/,
      ],
      [
        () => savingsRecord(listed(), savings({ summary: { accountBalance: '9999.99' } }), undefined, context()),
        /^summary\.accountBalance: expected a number, got a string$/,
      ],
      [
        () => savingsRecord(listed(), savings({ timeline: { activatedOnDate: '2024-03-01' } }), undefined, context()),
        /^timeline\.activatedOnDate: expected a date as an array of three integers/,
      ],
      [
        () => savingsRecord(listed(), savings({ timeline: { activatedOnDate: [2024, 2, 30] } }), undefined, context()),
        /^timeline\.activatedOnDate:/,
      ],
      [
        () => savingsRecord(listed(), savings({ transactions: [posting([2026, 1], 1)] }), undefined, context()),
        /^transactions\[0\]\.date:/,
      ],
      [
        () => loanRecord(listed(), loan({ annualInterestRate: null }), context()),
        /^annualInterestRate: expected a number/,
      ],
      [
        () =>
          readClientAccounts({
            savingsAccounts: [{ id: 1, accountNo: '1', status: { active: true }, depositType: { id: 500 } }],
          }),
        /^savingsAccounts\[0\]\.depositType\.id: expected 100, 200 or 300$/,
      ],
    ];
    for (const [read, expected] of cases) {
      assert.throws(read, (error: unknown) => {
        assert.ok(error instanceof MalformedAnswer, String(error));
        assert.match(error.message, expected);
        assert.ok(!error.message.includes('9999.99') && !error.message.includes('2024-03-01'));
        return true;
      });
    }
  });

  it('never crashes on arbitrary answers: a record or a MalformedAnswer', () => {
    const anyJson = fc.jsonValue({ maxDepth: 4 });
    // Well-formed skeletons with arbitrary values in the places the mapping reads.
    const savingsLike = fc.record(
      {
        nominalAnnualInterestRate: anyJson,
        allowOverdraft: anyJson,
        overdraftLimit: anyJson,
        externalId: anyJson,
        timeline: fc.oneof(anyJson, fc.record({ submittedOnDate: anyJson, activatedOnDate: anyJson })),
        summary: fc.oneof(
          anyJson,
          fc.record({ accountBalance: anyJson, availableBalance: anyJson, interestNotPosted: anyJson }),
        ),
        transactions: fc.oneof(
          anyJson,
          fc.array(fc.record({ transactionType: anyJson, date: anyJson, amount: anyJson, reversed: anyJson })),
        ),
      },
      { requiredKeys: [] },
    );
    const loanLike = fc.record(
      {
        annualInterestRate: anyJson,
        principal: anyJson,
        timeline: fc.oneof(
          anyJson,
          fc.record({ submittedOnDate: anyJson, actualDisbursementDate: anyJson, expectedMaturityDate: anyJson }),
        ),
        summary: fc.oneof(
          anyJson,
          fc.record({ totalOutstanding: anyJson, totalOverdue: anyJson, principalDisbursed: anyJson }),
        ),
        repaymentSchedule: fc.oneof(
          anyJson,
          fc.record({ periods: fc.oneof(anyJson, fc.array(fc.record({ dueDate: anyJson, complete: anyJson }))) }),
        ),
        transactions: fc.oneof(
          anyJson,
          fc.array(fc.record({ type: anyJson, date: anyJson, interestPortion: anyJson, manuallyReversed: anyJson })),
        ),
      },
      { requiredKeys: [] },
    );
    const outcome = (map: () => unknown) => {
      try {
        // Values far out of range (sums overflowing to Infinity) are refused by the record check after it.
        assert.equal(typeof map(), 'object');
      } catch (error) {
        if (!(error instanceof MalformedAnswer) && !(error instanceof ForeignAccount)) throw error;
      }
    };
    fc.assert(
      fc.property(savingsLike, anyJson, (details, term) =>
        outcome(() =>
          savingsRecord(
            listed({ depositType: 200 }),
            details,
            (() => {
              try {
                return readTermDeposit(term, context());
              } catch (error) {
                if (error instanceof MalformedAnswer || error instanceof ForeignAccount) return undefined;
                throw error;
              }
            })(),
            context(),
          ),
        ),
      ),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(loanLike, (details) => outcome(() => loanRecord(listed(), details, context()))),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(anyJson, (answer) =>
        outcome(() => readClientAccounts(answer) && savingsRecord(listed(), savings(), undefined, context())),
      ),
      { numRuns: 200 },
    );
  });
});
