/**
 * Strict reading of Fineract's answers (docs/cores/fineract.md#wire-shape), as Fineract really
 * sends them: dates as `[year, month, day]` arrays, amounts as JSON numbers, status objects
 * with booleans. A field that is not what it must be stops the read with
 * {@link MalformedAnswer}, naming the field's path and what was expected, never its value
 * (values are customers' financial data and demographics).
 */
import { isInteger, isLosslessNumber, isSafeNumber, LosslessNumber, parse } from 'lossless-json';
import { isCalendarDate } from '../../../domain/calendar-date.js';
import { isPlainObject } from '../../../domain/json.js';
import { jsonType } from '../account-record.js';
import { scanJsonText } from '../../../domain/json-duplicate-keys.js';

/** A field of a Fineract answer is missing or has the wrong type; `path` names it, e.g. `summary.accountBalance`. */
export class MalformedAnswer extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'MalformedAnswer';
  }
}

type Json = Record<string, unknown>;

/** A number too large for a double keeps its digits (a Fineract id is a 64-bit integer); every other number is a double. */
function parseNumber(text: string): unknown {
  return isInteger(text) && !isSafeNumber(text) ? new LosslessNumber(text) : Number(text);
}

/** What an answer holds at a field, for a message: never the value itself. */
function typeOf(value: unknown): string {
  return isLosslessNumber(value) ? 'a number out of range' : jsonType(value);
}

/**
 * An answer's JSON, read strictly: an integer beyond a double's precision keeps its digits,
 * and an object naming a key twice is refused whatever the values (JSON.parse would keep the
 * last, and a reader in between might keep the first: RFC 8259 §4 leaves it open; I-JSON,
 * RFC 7493 §2.3, forbids it; Fineract never sends one). The error names neither the key nor
 * any value. The text is parsed natively and scanned once for both; only a text holding an
 * integer of more than 15 digits is parsed again by lossless-json, which keeps its digits.
 */
export function parseAnswer(text: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new MalformedAnswer('(answer)', 'not JSON');
  }
  const facts = scanJsonText(text);
  if (facts.duplicateKey) throw new MalformedAnswer('(answer)', 'an object names the same key twice');
  return facts.longInteger ? parse(text, null, parseNumber) : json;
}

function join(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

/** `value` as an object, or {@link MalformedAnswer} at `path`. */
export function object(value: unknown, path: string): Json {
  if (!isPlainObject(value) || isLosslessNumber(value))
    throw new MalformedAnswer(path || '(answer)', `expected an object, got ${typeOf(value)}`);
  return value;
}

/** `value` as an array, or {@link MalformedAnswer} at `path`. */
export function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new MalformedAnswer(path || '(answer)', `expected an array, got ${typeOf(value)}`);
  return value;
}

/** Whether `field` is absent (missing or `null`: Fineract writes both for "no value"). */
export function absent(from: Json, field: string): boolean {
  return from[field] === undefined || from[field] === null;
}

export function objectField(from: Json, field: string, path: string): Json {
  return object(from[field], join(path, field));
}

export function optionalObject(from: Json, field: string, path: string): Json | undefined {
  return absent(from, field) ? undefined : objectField(from, field, path);
}

/** An optional array field: absent reads as empty (Fineract leaves out empty lists). */
export function listField(from: Json, field: string, path: string): unknown[] {
  return absent(from, field) ? [] : array(from[field], join(path, field));
}

export function numberField(from: Json, field: string, path: string): number {
  const value = from[field];
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new MalformedAnswer(
      join(path, field),
      `expected a number, got ${value === undefined ? 'nothing' : typeOf(value)}`,
    );
  return value;
}

export function optionalNumber(from: Json, field: string, path: string): number | undefined {
  return absent(from, field) ? undefined : numberField(from, field, path);
}

/** A Fineract id as its decimal digits: 1 to 18 of them, no sign, no leading zero (a positive 64-bit integer that any id fits). */
export const FINERACT_ID = /^[1-9][0-9]{0,17}$/;

/**
 * A Fineract id (a Java `Long`) as the decimal string it is: kept as text end to end, so an
 * id beyond a double's precision is neither rounded nor confused with its neighbour.
 */
export function idField(from: Json, field: string, path: string): string {
  const value = from[field];
  const digits =
    typeof value === 'number' && Number.isSafeInteger(value)
      ? String(value)
      : isLosslessNumber(value)
        ? value.toString()
        : undefined;
  if (digits === undefined || !FINERACT_ID.test(digits))
    throw new MalformedAnswer(join(path, field), 'expected a positive integer of at most 18 digits');
  return digits;
}

export function stringField(from: Json, field: string, path: string): string {
  const value = from[field];
  if (typeof value !== 'string')
    throw new MalformedAnswer(
      join(path, field),
      `expected a string, got ${value === undefined ? 'nothing' : typeOf(value)}`,
    );
  return value;
}

/** The longest text taken from Fineract into a record or a customer key. */
const MAX_TEXT_LENGTH = 256;
// C0 controls, DEL and C1 controls: nothing a product name, account number or key holds.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A text field passed on to platforms (`accountNo`, `shortProductName`, `externalId`): a
 * string of at most {@link MAX_TEXT_LENGTH} characters without control characters.
 */
export function textField(from: Json, field: string, path: string): string {
  const value = stringField(from, field, path);
  if (value.length > MAX_TEXT_LENGTH)
    throw new MalformedAnswer(join(path, field), `expected at most ${MAX_TEXT_LENGTH} characters`);
  if (CONTROL_CHARACTER.test(value)) throw new MalformedAnswer(join(path, field), 'holds a control character');
  return value;
}

export function optionalText(from: Json, field: string, path: string): string | undefined {
  return absent(from, field) ? undefined : textField(from, field, path);
}

export function optionalString(from: Json, field: string, path: string): string | undefined {
  return absent(from, field) ? undefined : stringField(from, field, path);
}

/** A flag: `true` only when the field is the boolean `true`; absent is `false`; anything else is malformed. */
export function flag(from: Json, field: string, path: string): boolean {
  if (absent(from, field)) return false;
  const value = from[field];
  if (typeof value !== 'boolean')
    throw new MalformedAnswer(join(path, field), `expected a boolean, got ${typeOf(value)}`);
  return value;
}

/** A calendar date as Fineract writes it, `[2024, 3, 1]`. */
export interface FineractDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

export function dateField(from: Json, field: string, path: string): FineractDate {
  const value = from[field];
  if (
    !Array.isArray(value) ||
    value.length !== 3 ||
    !value.every((part) => typeof part === 'number' && Number.isInteger(part)) ||
    !isCalendarDate(value[0] as number, value[1] as number, value[2] as number)
  )
    throw new MalformedAnswer(join(path, field), 'expected a date as an array of three integers [year, month, day]');
  return { year: value[0] as number, month: value[1] as number, day: value[2] as number };
}

export function optionalDate(from: Json, field: string, path: string): FineractDate | undefined {
  return absent(from, field) ? undefined : dateField(from, field, path);
}
