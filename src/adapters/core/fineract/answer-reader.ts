/**
 * Strict reading of Fineract's answers (docs/cores/fineract.md#wire-shape), as Fineract really
 * sends them: dates as `[year, month, day]` arrays, amounts as JSON numbers, status objects
 * with booleans. A field that is not what it must be stops the read with
 * {@link MalformedAnswer}, naming the field's path and what was expected, never its value
 * (values are customers' financial data and demographics).
 */
import { isCalendarDate } from '../../../domain/calendar-date.js';
import { isPlainObject } from '../../../domain/json.js';
import { jsonType } from '../account-record.js';

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

function join(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

/** `value` as an object, or {@link MalformedAnswer} at `path`. */
export function object(value: unknown, path: string): Json {
  if (!isPlainObject(value))
    throw new MalformedAnswer(path || '(answer)', `expected an object, got ${jsonType(value)}`);
  return value;
}

/** `value` as an array, or {@link MalformedAnswer} at `path`. */
export function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new MalformedAnswer(path || '(answer)', `expected an array, got ${jsonType(value)}`);
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
      `expected a number, got ${value === undefined ? 'nothing' : jsonType(value)}`,
    );
  return value;
}

export function optionalNumber(from: Json, field: string, path: string): number | undefined {
  return absent(from, field) ? undefined : numberField(from, field, path);
}

/** A Fineract id: a positive integer. */
export function idField(from: Json, field: string, path: string): number {
  const value = numberField(from, field, path);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new MalformedAnswer(join(path, field), 'expected a positive integer');
  return value;
}

export function stringField(from: Json, field: string, path: string): string {
  const value = from[field];
  if (typeof value !== 'string')
    throw new MalformedAnswer(
      join(path, field),
      `expected a string, got ${value === undefined ? 'nothing' : jsonType(value)}`,
    );
  return value;
}

export function optionalString(from: Json, field: string, path: string): string | undefined {
  return absent(from, field) ? undefined : stringField(from, field, path);
}

/** A flag: `true` only when the field is the boolean `true`; absent is `false`; anything else is malformed. */
export function flag(from: Json, field: string, path: string): boolean {
  if (absent(from, field)) return false;
  const value = from[field];
  if (typeof value !== 'boolean')
    throw new MalformedAnswer(join(path, field), `expected a boolean, got ${jsonType(value)}`);
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
