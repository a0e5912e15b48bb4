/**
 * The filters of a transaction listing (docs/behaviour.md#transaction-filters): the day
 * window with its defaults and bounds, checked as pure functions of the request and of
 * today's UTC day (the caller reads its clock).
 */
import { isCalendarDate } from './calendar-date.js';
import type { FieldProblem } from './errors.js';
import type { StatusFilter } from './transaction.js';

/** Without `fromDate`, the window starts this many days before `toDate`; sync always reads this window. */
export const DEFAULT_WINDOW_DAYS = 90;
/** The longest window a listing may ask for: two years and a leap day. */
export const MAX_WINDOW_DAYS = 731;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

/** What a listing reads: both days inclusive, `YYYY-MM-DD`. */
export interface TransactionFilters {
  readonly fromDate: string;
  readonly toDate: string;
  readonly status: StatusFilter;
}

export interface FilterInput {
  readonly fromDate?: string | undefined;
  readonly toDate?: string | undefined;
  readonly status?: StatusFilter | undefined;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** Milliseconds since the epoch of a real calendar day's UTC midnight, or `undefined`. */
function dayStart(day: string): number | undefined {
  const match = DAY.exec(day);
  if (!match) return undefined;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (!isCalendarDate(year, month, date)) return undefined;
  // Date.UTC maps years 0–99 to the 1900s; setUTCFullYear keeps them.
  const start = new Date(Date.UTC(2000, month - 1, date));
  start.setUTCFullYear(year);
  return start.getTime();
}

/** The number the ASCII digits `day[from..to)` spell, or -1 when one is not a digit. */
function digitsAt(day: string, from: number, to: number): number {
  let value = 0;
  for (let index = from; index < to; index += 1) {
    const digit = day.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Whether `day` is a real `YYYY-MM-DD` day: {@link dayStart}'s checks without making a Date,
 * read by character code rather than a regex with captures (two days in every record a core
 * answers).
 */
export function isDay(day: string): boolean {
  if (day.length !== 10 || day.charCodeAt(4) !== 45 || day.charCodeAt(7) !== 45) return false;
  const year = digitsAt(day, 0, 4);
  const month = digitsAt(day, 5, 7);
  const date = digitsAt(day, 8, 10);
  return year >= 0 && month >= 0 && date >= 0 && isCalendarDate(year, month, date);
}

/** `day` moved by `days` (negative: earlier). `day` must be a real day. */
export function addDays(day: string, days: number): string {
  return utcDay(new Date(dayStart(day)! + days * MS_PER_DAY));
}

/** Whole days from `from` to `to` (both real days). */
function daysFrom(from: string, to: string): number {
  return Math.round((dayStart(to)! - dayStart(from)!) / MS_PER_DAY);
}

/**
 * The filters of a request, with the defaults filled in (`toDate` today, `fromDate`
 * {@link DEFAULT_WINDOW_DAYS} before `toDate`, `status` both), or the problems naming
 * each bad parameter.
 */
export function resolveFilters(
  input: FilterInput,
  today: string,
): { readonly filters: TransactionFilters } | { readonly problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  for (const name of ['fromDate', 'toDate'] as const) {
    const value = input[name];
    if (value !== undefined && !isDay(value))
      problems.push({ path: `/${name}`, message: 'must be a real calendar day, YYYY-MM-DD' });
  }
  if (problems.length > 0) return { problems };
  const toDate = input.toDate ?? today;
  const fromDate = input.fromDate ?? addDays(toDate, -DEFAULT_WINDOW_DAYS);
  // Only a toDate in the first 90 days of year 1 has a default window starting before the calendar.
  if (!isDay(fromDate)) return { problems: [{ path: '/toDate', message: 'must be a later day' }] };
  const span = daysFrom(fromDate, toDate);
  if (span < 0) problems.push({ path: '/fromDate', message: 'must not be after toDate' });
  else if (span > MAX_WINDOW_DAYS)
    problems.push({ path: '/fromDate', message: `must be at most ${MAX_WINDOW_DAYS} days before toDate` });
  if (problems.length > 0) return { problems };
  return { filters: { fromDate, toDate, status: input.status ?? 'both' } };
}
