/**
 * Strict reading of account records (docs/behaviour.md#accounts) from untrusted JSON: the HTTP
 * connector reads the core's answers with it and the simulator its fixture
 * files. The record's shape is `AccountRecordSchema` (domain/account.ts), checked
 * by a TypeBox compiled checker: on the hot path a valid record costs one
 * generated function call. Only a record that fails is walked field by field,
 * to name each field at fault and what was expected, never the value: values
 * are customers' financial data.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import {
  AccountRecordSchema,
  LETTER_PATTERN,
  LOCAL_DATE_TIME_PATTERN,
  type AccountRecord,
} from '../../domain/account.js';
import { isPlainObject } from '../../domain/json.js';
import { isCalendarDate } from '../../domain/calendar-date.js';

export interface Problem {
  /** Where, e.g. `customers[2].accounts[0].interestRate`. */
  readonly path: string;
  readonly message: string;
}

type FieldKind = 'string' | 'letter' | 'number' | 'boolean' | 'dateTime';

function kindOf(schema: TSchema): FieldKind {
  if (schema.type === 'number') return 'number';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.pattern === LETTER_PATTERN) return 'letter';
  if (schema.pattern === LOCAL_DATE_TIME_PATTERN) return 'dateTime';
  return 'string';
}

/** Every field of an account record and its kind, in the order of the core protocol's table, derived from the schema. */
export const ACCOUNT_FIELDS = Object.freeze(
  Object.fromEntries(Object.entries(AccountRecordSchema.properties).map(([name, schema]) => [name, kindOf(schema)])),
) as Readonly<Record<keyof AccountRecord, FieldKind>>;

const FIELD_NAMES = Object.keys(ACCOUNT_FIELDS) as (keyof AccountRecord)[];
const DATE_FIELDS = FIELD_NAMES.filter((name) => ACCOUNT_FIELDS[name] === 'dateTime');

/**
 * The documented fields of a checked record, and no others (a core's answer may carry more:
 * they never reach a platform). One object literal, which the compiler holds to the
 * record's type (a field added to the schema fails the build until it is added here):
 * the object is made whole in its final shape, where copying field by field grows it
 * step by step, a few percent of an accounts request (docs/benchmarks.md).
 */
function specFieldsOf(record: AccountRecord): AccountRecord {
  return {
    id: record.id,
    customerKey: record.customerKey,
    guid: record.guid,
    nickname: record.nickname,
    accountReferenceId: record.accountReferenceId,
    type: record.type,
    currentBalance: record.currentBalance,
    availableBalance: record.availableBalance,
    interestRate: record.interestRate,
    accruedInterest: record.accruedInterest,
    yearToDateInterest: record.yearToDateInterest,
    paidYearToDateInterest: record.paidYearToDateInterest,
    pastDueAmount: record.pastDueAmount,
    creditLimit: record.creditLimit,
    availableCredit: record.availableCredit,
    originationDate: record.originationDate,
    nextPaymentDate: record.nextPaymentDate,
    maturityDate: record.maturityDate,
    productCode: record.productCode,
    isDefault: record.isDefault,
    hasCard: record.hasCard,
    receiveEmailNotices: record.receiveEmailNotices,
    receiveEmailStatements: record.receiveEmailStatements,
    receivePaperNotices: record.receivePaperNotices,
    receivePaperStatements: record.receivePaperStatements,
    authorizationCode: record.authorizationCode,
    originalBalance: record.originalBalance,
  };
}

/** Fixture files: exactly the documented fields. */
const closedRecord = TypeCompiler.Compile(AccountRecordSchema);
/** A core's answers: the documented fields, others ignored (and dropped from the result). */
const openRecord = TypeCompiler.Compile(Type.Object(AccountRecordSchema.properties));

/** The JSON type of a value, for "expected X, got Y" without showing the value. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isFinite(value) ? 'a number' : 'a non-finite number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const ZERO = 48;
/** The number the ASCII digits `value[start, start + count)` spell, or -1 if one is not a digit. */
function digitsAt(value: string, start: number, count: number): number {
  let number = 0;
  for (let i = start; i < start + count; i += 1) {
    const digit = value.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

/**
 * `YYYY-MM-DDTHH:mm:ss`, a real calendar date and time, no zone (year 0001 allowed: it means "no date").
 * Read character by character: every account record of every core answer has two, and the
 * regular expression with its match array showed in an accounts request's profile.
 */
export function isDateTimeWithoutZone(value: string): boolean {
  if (
    value.length !== 19 ||
    value[4] !== '-' ||
    value[7] !== '-' ||
    value[10] !== 'T' ||
    value[13] !== ':' ||
    value[16] !== ':'
  )
    return false;
  const hours = digitsAt(value, 11, 2);
  const minutes = digitsAt(value, 14, 2);
  const seconds = digitsAt(value, 17, 2);
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59) return false;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  return year >= 0 && month >= 0 && day >= 0 && isCalendarDate(year, month, day);
}

/** `YYYY-MM-DD`, a real calendar date. */
export function isIsoDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [, y, mo, d] = match.map(Number) as [number, number, number, number];
  return isCalendarDate(y, mo, d);
}

function fieldProblem(kind: FieldKind, value: unknown): string | undefined {
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? undefined : `expected a string, got ${jsonType(value)}`;
    case 'letter':
      if (typeof value !== 'string') return `expected a single-letter string, got ${jsonType(value)}`;
      return new RegExp(LETTER_PATTERN).test(value) ? undefined : 'expected a single letter';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : `expected a number, got ${jsonType(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected a boolean, got ${jsonType(value)}`;
    case 'dateTime':
      if (typeof value !== 'string') return `expected a date-time string, got ${jsonType(value)}`;
      return isDateTimeWithoutZone(value)
        ? undefined
        : 'expected a date-time without zone, YYYY-MM-DDTHH:mm:ss (0001-01-01T00:00:00 for no date)';
  }
}

/**
 * The schema's pattern says `YYYY-MM-DDTHH:mm:ss`; a JSON Schema pattern cannot say
 * whether that is a real calendar date, so the three date fields are checked here too.
 */
function realDates(value: Record<string, unknown>): boolean {
  return DATE_FIELDS.every((name) => isDateTimeWithoutZone(value[name] as string));
}

/** The slow path, for a record the compiled checker refused: every problem, in the record's field order. */
function explain(
  value: Record<string, unknown>,
  path: string,
  problems: Problem[],
  unknownFields: 'reject' | 'drop',
): void {
  for (const name of FIELD_NAMES) {
    if (!Object.hasOwn(value, name)) problems.push({ path: `${path}.${name}`, message: 'missing' });
    else {
      const problem = fieldProblem(ACCOUNT_FIELDS[name], value[name]);
      if (problem) problems.push({ path: `${path}.${name}`, message: problem });
    }
  }
  if (unknownFields === 'reject') {
    for (const name of Object.keys(value)) {
      if (!Object.hasOwn(ACCOUNT_FIELDS, name))
        problems.push({ path: `${path}.${safeName(name)}`, message: 'unknown field' });
    }
  }
}

/**
 * Reads one account record. Every field must be present with its type.
 * `unknownFields: 'reject'` (fixture files) reports fields the record does not
 * have; `'drop'` (answers of a core) ignores them, and they never reach the
 * result, so nothing beyond the documented fields can leak to a platform.
 */
export function readAccountRecord(
  value: unknown,
  path: string,
  problems: Problem[],
  unknownFields: 'reject' | 'drop',
): AccountRecord | undefined {
  if (!isPlainObject(value)) {
    problems.push({ path, message: `expected an account record object, got ${jsonType(value)}` });
    return undefined;
  }
  const checker = unknownFields === 'reject' ? closedRecord : openRecord;
  if (checker.Check(value) && realDates(value)) return specFieldsOf(value);
  const before = problems.length;
  explain(value, path, problems, unknownFields);
  // The checker and the explanation agree; should they ever not, the record is still refused.
  if (problems.length === before) problems.push({ path, message: 'does not match the account record' });
  return undefined;
}

/**
 * The problems of one record as a connector hands it over (`coregate core check`): exactly the
 * documented fields, each of its type, nothing else.
 */
export function checkAccountRecord(value: unknown, path: string): Problem[] {
  const problems: Problem[] = [];
  readAccountRecord(value, path, problems, 'reject');
  return problems;
}

/** A key taken from input, shortened so a problem list stays readable. */
export function safeName(name: string): string {
  const printable = name.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 40 ? `${printable.slice(0, 40)}…` : printable;
}

/** Problems as one line: `a.b: missing; c: expected a number, got a string`. */
export function describeProblems(problems: readonly Problem[], limit = 10): string {
  const shown = problems.slice(0, limit).map((problem) => `${problem.path}: ${problem.message}`);
  if (problems.length > limit) shown.push(`and ${problems.length - limit} more`);
  return shown.join('; ');
}
