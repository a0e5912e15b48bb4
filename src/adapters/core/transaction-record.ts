/**
 * Strict reading of a core's transactions page (docs/core-protocol.md#3b-get-v1accountsaccountidtransactions--an-accounts-transactions-11-optional)
 * from untrusted JSON. A page of valid records costs one compiled check per record; a record
 * that fails is named by its index and field, never by a value (amounts and descriptions are
 * customers' financial data). A `type` the closed list does not know is read as `other`: a core
 * may grow codes faster than its adapter (docs/behaviour.md#transaction-types).
 */
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { isPlainObject } from '../../domain/json.js';
import { TransactionRecordSchema, type TransactionRecord } from '../../domain/transaction.js';
import { isDay } from '../../domain/transaction-query.js';
import { CoreProtocolError, type TransactionPage } from '../../ports/core-connector.js';
import { describeProblems, jsonType, type Problem } from './account-record.js';

/** The record as it may come over the wire: any `type` string, extra fields allowed (and dropped). */
const WireRecordSchema = Type.Object({
  ...TransactionRecordSchema.properties,
  type: Type.String({ minLength: 1, maxLength: 64 }),
});
const wireRecord = TypeCompiler.Compile(WireRecordSchema);
const KNOWN_TYPES = new Set<string>(TransactionRecordSchema.properties.type.anyOf.map((literal) => literal.const));
/** A core's cursor travels back in a query string and inside coregate's own cursor. */
const CORE_CURSOR = /^[\x21-\x7e]{1,1024}$/;

function recordOf(item: unknown, index: number, problems: Problem[]): TransactionRecord | undefined {
  if (!wireRecord.Check(item)) {
    const first = wireRecord.Errors(item).First();
    const field = first?.path ? first.path.slice(1).split('/')[0] : '';
    problems.push({
      path: `transactions[${index}]${field ? `.${field}` : ''}`,
      message: field ? 'does not match the transaction record' : `expected an object, got ${jsonType(item)}`,
    });
    return undefined;
  }
  const { bookingDate, status } = item;
  if (!isDay(item.valueDate) || (bookingDate !== null && !isDay(bookingDate)))
    problems.push({ path: `transactions[${index}]`, message: 'a day that is not a calendar day' });
  if ((status === 'pending') !== (bookingDate === null))
    problems.push({ path: `transactions[${index}].bookingDate`, message: 'null exactly while pending' });
  return {
    id: item.id,
    accountId: item.accountId,
    status,
    bookingDate,
    valueDate: item.valueDate,
    amount: item.amount,
    creditDebit: item.creditDebit,
    currency: item.currency,
    description: item.description,
    type: KNOWN_TYPES.has(item.type) ? (item.type as TransactionRecord['type']) : 'other',
    runningBalance: item.runningBalance,
    reversed: item.reversed,
  };
}

/** The page a core answered, or a {@link CoreProtocolError} naming what is wrong with it. */
export function readTransactionPage(json: unknown): TransactionPage {
  if (!isPlainObject(json) || !Array.isArray(json.transactions))
    throw new CoreProtocolError(
      `invalid transactions answer: expected {"transactions": [...], "nextCursor": ...}, got ${isPlainObject(json) ? `transactions as ${jsonType(json.transactions)}` : jsonType(json)}`,
      true,
    );
  const { nextCursor } = json;
  if (!(nextCursor === null || (typeof nextCursor === 'string' && CORE_CURSOR.test(nextCursor))))
    throw new CoreProtocolError(
      'invalid transactions answer: nextCursor is neither null nor 1 to 1024 visible ASCII characters',
      true,
    );
  const problems: Problem[] = [];
  const transactions: TransactionRecord[] = [];
  json.transactions.forEach((item: unknown, index: number) => {
    const record = recordOf(item, index, problems);
    if (record) transactions.push(record);
  });
  if (problems.length > 0)
    throw new CoreProtocolError(`invalid transactions answer: ${describeProblems(problems)}`, true);
  return { transactions, nextCursor };
}
