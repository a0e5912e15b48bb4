/**
 * The answers the stand-in writes, in Fineract's wire shape for its release
 * (docs/cores/fineract.md#stand-in maps each to the Fineract source it was read from).
 */
import type { ReleaseBehaviour } from './releases.js';
import type { StandInClient, StandInLoan, StandInSavings, WireDate } from './stand-in-data.js';
import {
  CURRENCY,
  depositType,
  displayName,
  loanStatus,
  loanTransactionType,
  pad,
  savingsStatus,
  savingsTransactionType,
  isSavingsDebit,
  withOptional,
  type Json,
} from './wire-shapes.js';

export class StandInAnswers {
  constructor(
    private readonly behaviour: ReleaseBehaviour,
    /** Whether the `malformed` fault is on: accounts without `summary`, dates as strings. */
    private readonly malformed: () => boolean,
  ) {}

  client(client: StandInClient): Json {
    return withOptional(
      {
        id: client.id,
        accountNo: pad(client.id, 9),
        status: client.active
          ? { id: 300, code: 'clientStatusType.active', value: 'Active' }
          : { id: 600, code: 'clientStatusType.closed', value: 'Closed' },
        active: client.active,
        firstname: client.firstname,
        lastname: client.lastname,
        displayName: displayName(client),
        officeId: 1,
        officeName: 'Head Office',
        groups: [],
      },
      { externalId: client.externalId, dateOfBirth: this.date(client.dateOfBirth) },
    );
  }

  identifiers(client: StandInClient): Json[] {
    return client.identifiers.map((identifier, index) => ({
      id: client.id * 100 + index,
      clientId: client.id,
      documentType: { id: 1 + index, name: identifier.documentType, active: true, mandatory: false },
      documentKey: identifier.documentKey,
      status: identifier.active ? 'clientIdentifierStatusType.active' : 'clientIdentifierStatusType.inactive',
    }));
  }

  accounts(client: StandInClient): Json {
    const savingsAccounts = client.savings.map((account) => ({
      id: account.id,
      accountNo: account.accountNo,
      productId: account.depositType,
      productName: account.productName,
      shortProductName: account.shortProductName,
      status: savingsStatus(account.status),
      currency: CURRENCY,
      accountBalance: account.accountBalance,
      accountType: { id: 1, code: 'accountType.individual', value: 'Individual' },
      timeline: withOptional({ submittedOnDate: account.submittedOn }, { activatedOnDate: account.activatedOn }),
      depositType: depositType(account.depositType),
    }));
    const loanAccounts = client.loans.map((loan) =>
      withOptional(
        {
          id: loan.id,
          accountNo: loan.accountNo,
          productId: 1,
          productName: loan.productName,
          shortProductName: loan.shortProductName,
          status: loanStatus(loan.status),
          loanType: { id: 1, code: 'accountType.individual', value: 'Individual' },
          loanCycle: 1,
          timeline: withOptional({ submittedOnDate: loan.submittedOn }, { actualDisbursementDate: loan.disbursedOn }),
          inArrears: (loan.totalOverdue ?? 0) > 0,
          originalLoan: loan.principal,
          loanBalance: loan.totalOutstanding,
        },
        { externalId: loan.externalId },
      ),
    );
    // Fineract leaves out an empty list.
    return withOptional(
      {},
      {
        savingsAccounts: savingsAccounts.length > 0 ? savingsAccounts : undefined,
        loanAccounts: loanAccounts.length > 0 ? loanAccounts : undefined,
      },
    );
  }

  private date(date: WireDate | undefined): unknown {
    if (date === undefined) return undefined;
    return this.malformed() ? date.map((part) => String(part).padStart(2, '0')).join('-') : [...date];
  }

  savings(client: StandInClient, account: StandInSavings, withTransactions: boolean): Json {
    const body = withOptional(
      {
        id: account.id,
        accountNo: account.accountNo,
        depositType: depositType(account.depositType),
        clientId: client.id,
        clientName: displayName(client),
        savingsProductId: account.depositType,
        savingsProductName: account.productName,
        fieldOfficerId: 0,
        status: savingsStatus(account.status),
        timeline: withOptional(
          { submittedOnDate: this.date(account.submittedOn) },
          { approvedOnDate: this.date(account.activatedOn), activatedOnDate: this.date(account.activatedOn) },
        ),
        currency: CURRENCY,
        nominalAnnualInterestRate: account.nominalAnnualInterestRate,
        interestCompoundingPeriodType: {
          id: 1,
          code: 'savings.interest.period.savingsCompoundingInterestPeriodType.daily',
          value: 'Daily',
        },
        allowOverdraft: account.allowOverdraft ?? account.overdraftLimit !== undefined,
        enforceMinRequiredBalance: false,
        withHoldTax: false,
      },
      {
        externalId: account.externalId,
        // `JdbcSupport.getBigDecimalDefaultToNullIfZero`: a limit of 0 is left out.
        overdraftLimit: account.overdraftLimit === 0 ? undefined : account.overdraftLimit,
        summary: this.malformed()
          ? undefined
          : withOptional(
              {
                currency: CURRENCY,
                totalDeposits: account.transactions
                  .filter((t) => t.kind === 'deposit' && !t.reversed)
                  .reduce((sum, t) => sum + t.amount, 0),
                totalInterestPosted: account.transactions
                  .filter((t) => t.kind === 'interestPosting' && !t.reversed)
                  .reduce((sum, t) => sum + t.amount, 0),
                accountBalance: account.accountBalance,
                totalOverdraftInterestDerived: 0,
              },
              { availableBalance: account.availableBalance, interestNotPosted: account.interestNotPosted },
            ),
      },
    );
    // `retrieveAllTransactions(accountId, DepositAccountType.SAVINGS_DEPOSIT)`: deposit type 100's only.
    if (withTransactions && account.depositType === 100) this.addTransactions(body, account);
    return body;
  }

  private addTransactions(body: Json, account: StandInSavings): void {
    if (account.transactions.length > 0)
      body.transactions = account.transactions.map((transaction) => this.savingsTransaction(account, transaction));
  }

  /** One row of a savings account's transactions (`SavingsAccountTransactionsMapper`), as listed and as searched. */
  savingsTransaction(account: StandInSavings, transaction: StandInSavings['transactions'][number]): Json {
    const row: Json = {
      id: transaction.id,
      transactionType: savingsTransactionType(transaction.kind),
      accountId: account.id,
      accountNo: account.accountNo,
      date: this.date(transaction.date),
      currency: CURRENCY,
      amount: transaction.amount,
      runningBalance: runningBalances(account).get(transaction.id),
      reversed: transaction.reversed ?? false,
      submittedOnDate: this.date(transaction.date),
      interestedPostedAsOn: false,
    };
    // `AccountTransferData.transferBasicDetails`: Gson leaves out its null fields.
    if (transaction.transfer)
      row.transfer = {
        id: transaction.transfer.id,
        reversed: transaction.reversed ?? false,
        currency: CURRENCY,
        transferAmount: transaction.amount,
        transferDate: this.date(transaction.date),
        transferDescription: transaction.transfer.description,
      };
    return row;
  }

  termDeposit(client: StandInClient, account: StandInSavings, withTransactions: boolean): Json {
    const body = withOptional(
      {
        id: account.id,
        accountNo: account.accountNo,
        clientId: client.id,
        clientName: displayName(client),
        savingsProductId: account.depositType,
        savingsProductName: account.productName,
        status: savingsStatus(account.status),
        timeline: { submittedOnDate: this.date(account.submittedOn) },
        currency: CURRENCY,
        preClosurePenalApplicable: false,
      },
      {
        externalId: account.externalId,
        depositAmount: account.depositAmount,
        maturityDate: this.date(account.maturityDate),
        summary: this.malformed() ? undefined : { currency: CURRENCY, accountBalance: account.accountBalance },
      },
    );
    if (withTransactions) this.addTransactions(body, account);
    return body;
  }

  loan(client: StandInClient, loan: StandInLoan, associations: string[]): Json {
    const body = withOptional(
      {
        id: loan.id,
        accountNo: loan.accountNo,
        status: loanStatus(loan.status),
        clientId: client.id,
        clientName: displayName(client),
        loanProductId: 1,
        loanProductName: loan.productName,
        loanType: { id: 1, code: 'accountType.individual', value: 'Individual' },
        currency: CURRENCY,
        principal: loan.principal,
        approvedPrincipal: loan.principal,
        annualInterestRate: loan.annualInterestRate,
        numberOfRepayments: loan.periods.length,
        timeline: withOptional(
          { submittedOnDate: this.date(loan.submittedOn), expectedMaturityDate: this.date(loan.expectedMaturityDate) },
          { actualDisbursementDate: this.date(loan.disbursedOn) },
        ),
      },
      {
        externalId: loan.externalId,
        summary: this.malformed()
          ? undefined
          : withOptional(
              {
                currency: CURRENCY,
                principalDisbursed: loan.disbursedOn ? loan.principal : 0,
                totalOutstanding: loan.totalOutstanding,
              },
              { totalOverdue: loan.totalOverdue },
            ),
      },
    );
    if (associations.includes('repaymentSchedule')) {
      body.repaymentSchedule = {
        currency: CURRENCY,
        periods: [
          // Period 0 is the disbursement: no `period` number, no `complete`.
          ...(loan.disbursedOn ? [{ dueDate: this.date(loan.disbursedOn), principalDisbursed: loan.principal }] : []),
          ...loan.periods.map((period, index) => ({
            period: index + 1,
            dueDate: this.date(period.dueDate),
            complete: period.complete,
          })),
        ],
      };
    }
    if (associations.includes('transactions') && loan.transactions.length > 0) {
      body.transactions = loan.transactions.map((transaction) =>
        withOptional(
          {
            id: transaction.id,
            type: loanTransactionType(transaction.kind, this.behaviour),
            date: this.date(transaction.date),
            currency: CURRENCY,
            amount: transaction.amount,
            manuallyReversed: transaction.manuallyReversed ?? false,
            outstandingLoanBalance: outstandingBalances(loan).get(transaction.id),
          },
          { interestPortion: transaction.interestPortion },
        ),
      );
    }
    return body;
  }
}

interface DatedTransaction {
  readonly id: number;
  readonly date: WireDate;
}

const balances = new WeakMap<readonly DatedTransaction[], ReadonlyMap<number, number>>();

/**
 * Each transaction's balance after it, in value date and id order: `move` is how a transaction
 * not reversed moves it, and a reversed one keeps the balance before it. Amounts are cents-exact
 * in the demo data, so the sums are rounded to cents.
 */
function balancesAfter<T extends DatedTransaction>(
  transactions: readonly T[],
  reversed: (transaction: T) => boolean,
  move: (transaction: T) => number,
): ReadonlyMap<number, number> {
  let made = balances.get(transactions);
  if (!made) {
    const ordered = [...transactions].sort(
      (a, b) => a.date[0] - b.date[0] || a.date[1] - b.date[1] || a.date[2] - b.date[2] || a.id - b.id,
    );
    const map = new Map<number, number>();
    let balance = 0;
    for (const transaction of ordered) {
      if (!reversed(transaction)) balance = Math.round((balance + move(transaction)) * 100) / 100;
      map.set(transaction.id, balance);
    }
    made = map;
    balances.set(transactions, made);
  }
  return made;
}

/** Each savings transaction's `runningBalance` (`running_balance_derived`): the account's balance after it. */
function runningBalances(account: StandInSavings): ReadonlyMap<number, number> {
  return balancesAfter(
    account.transactions,
    (transaction) => transaction.reversed === true,
    (transaction) => (isSavingsDebit(transaction.kind) ? -1 : 1) * transaction.amount,
  );
}

/**
 * Each loan transaction's `outstandingLoanBalance`, as Fineract's `Loan.updateLoanOutstandingBalances`
 * derives it (fineract-loan/…/loanaccount/domain/Loan.java, 1.9.0, 1.10.1 and develop): over the
 * transactions not reversed, in date order, a disbursement adds its amount and any other takes off
 * its principal portion (here the amount less its interest portion: the demo loans carry no fees).
 * A reversed row keeps the balance before it; Fineract leaves whatever it held when reversed, and
 * coregate reads no balance from a reversed row.
 */
function outstandingBalances(loan: StandInLoan): ReadonlyMap<number, number> {
  return balancesAfter(
    loan.transactions,
    (transaction) => transaction.manuallyReversed === true,
    (transaction) =>
      transaction.kind === 'disbursement'
        ? transaction.amount
        : -(transaction.amount - (transaction.interestPortion ?? 0)),
  );
}
