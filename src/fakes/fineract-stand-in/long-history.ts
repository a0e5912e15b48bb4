/**
 * A client whose savings account holds a long history (docs/cores/fineract.md#stand-in):
 * 50,000 transactions, generated rather than stored, whose unpaged listing
 * (`?associations=transactions`) is far over coregate's answer size limit. The history ends
 * on the last day of `year`, with one interest posting a day, so that year's postings take
 * more than one page of the transaction search.
 */
import type { StandInClient, StandInSavings, WireDate } from './stand-in-data.js';

export const LONG_HISTORY_TRANSACTIONS = 50_000;
/** Transactions a day: one interest posting, then deposits and withdrawals. */
const PER_DAY = 14;
/** Every this many days, the day's interest posting was reversed (it stays listed, `reversed` true). */
const REVERSED_EVERY = 50;

function dayBefore(last: Date, days: number): WireDate {
  const day = new Date(last.getTime() - days * 86_400_000);
  return [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
}

/**
 * Client 7 (external id `C-1007`) with savings account 71 (deposit type 100), its history
 * ending on 31 December `year`. Interest amounts are quarters, so sums are exact in binary.
 */
export function longHistoryClient(year: number): StandInClient {
  const last = new Date(Date.UTC(year, 11, 31));
  const opened = dayBefore(last, Math.floor((LONG_HISTORY_TRANSACTIONS - 1) / PER_DAY));
  const transactions: StandInSavings['transactions'][number][] = [];
  // Ids rise with the date: the oldest transaction is 1.
  for (let index = LONG_HISTORY_TRANSACTIONS - 1; index >= 0; index--) {
    const daysBack = Math.floor(index / PER_DAY);
    const slot = index % PER_DAY;
    const date = dayBefore(last, daysBack);
    const id = LONG_HISTORY_TRANSACTIONS - index;
    if (slot === 0)
      transactions.push({
        id,
        kind: 'interestPosting',
        date,
        amount: (1 + (daysBack % 4)) * 0.25,
        ...(daysBack % REVERSED_EVERY === 0 ? { reversed: true } : {}),
      });
    else transactions.push({ id, kind: slot % 3 === 0 ? 'withdrawal' : 'deposit', date, amount: 10 + slot });
  }
  return {
    id: 7,
    externalId: 'C-1007',
    firstname: 'Lin',
    lastname: 'Marathon',
    active: true,
    dateOfBirth: [1975, 9, 30],
    identifiers: [],
    savings: [
      {
        id: 71,
        accountNo: '70007100',
        productName: 'Long Savings',
        shortProductName: 'LSAV',
        depositType: 100,
        status: 'active',
        submittedOn: opened,
        activatedOn: opened,
        nominalAnnualInterestRate: 1.5,
        accountBalance: 123_456.78,
        transactions,
      },
    ],
    loans: [],
  };
}
