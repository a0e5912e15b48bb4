/**
 * Strict reading of account records (spec §2.3) from untrusted JSON: the HTTP
 * connector reads the core's answers with it and the simulator its fixture
 * files. Problems name the field and what was expected, never the value: values
 * are customers' financial data.
 */
import type { AccountRecord } from '../../domain/account.js';
import { isCalendarDate } from '../../domain/calendar-date.js';
import { isPlainObject } from '../../domain/plain-object.js';

export interface Problem {
  /** Where, e.g. `customers[2].accounts[0].interestRate`. */
  readonly path: string;
  readonly message: string;
}

type FieldKind = 'string' | 'letter' | 'number' | 'boolean' | 'dateTime';

/** Every field of an account record and how it is checked, in the spec's order. */
export const ACCOUNT_FIELDS: Readonly<Record<keyof AccountRecord, FieldKind>> = {
  id: 'string',
  customerKey: 'string',
  guid: 'string',
  nickname: 'string',
  accountReferenceId: 'string',
  type: 'letter',
  currentBalance: 'number',
  availableBalance: 'number',
  interestRate: 'number',
  accruedInterest: 'number',
  yearToDateInterest: 'number',
  paidYearToDateInterest: 'number',
  pastDueAmount: 'number',
  creditLimit: 'number',
  availableCredit: 'number',
  originationDate: 'dateTime',
  nextPaymentDate: 'dateTime',
  maturityDate: 'dateTime',
  productCode: 'string',
  isDefault: 'boolean',
  hasCard: 'boolean',
  receiveEmailNotices: 'letter',
  receiveEmailStatements: 'letter',
  receivePaperNotices: 'letter',
  receivePaperStatements: 'letter',
  authorizationCode: 'letter',
  originalBalance: 'number',
};

const FIELD_NAMES = Object.keys(ACCOUNT_FIELDS) as (keyof AccountRecord)[];

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

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DDTHH:mm:ss`, a real calendar date and time, no zone (year 0001 allowed: it means "no date"). */
export function isDateTimeWithoutZone(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  return isCalendarDate(y, mo, d) && h <= 23 && mi <= 59 && s <= 59;
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
      return /^[A-Za-z]$/.test(value) ? undefined : 'expected a single letter';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `expected a number, got ${jsonType(value)}`;
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
 * Reads one account record. Every field must be present with its type.
 * `unknownFields: 'reject'` (fixture files) reports fields the spec does not
 * have; `'drop'` (answers of a core) ignores them, and they never reach the
 * result, so nothing beyond the spec's fields can leak to a platform.
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
  const before = problems.length;
  const record: Record<string, unknown> = {};
  for (const name of FIELD_NAMES) {
    if (!Object.hasOwn(value, name)) {
      problems.push({ path: `${path}.${name}`, message: 'missing' });
      continue;
    }
    const problem = fieldProblem(ACCOUNT_FIELDS[name], value[name]);
    if (problem) problems.push({ path: `${path}.${name}`, message: problem });
    else record[name] = value[name];
  }
  if (unknownFields === 'reject') {
    for (const name of Object.keys(value)) {
      if (!Object.hasOwn(ACCOUNT_FIELDS, name)) problems.push({ path: `${path}.${safeName(name)}`, message: 'unknown field' });
    }
  }
  return problems.length === before ? (record as unknown as AccountRecord) : undefined;
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
