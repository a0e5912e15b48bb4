/**
 * The one calendar check for `YYYY-MM-DD` parts (birth days, audit query dates, the
 * core's account dates). Plain arithmetic rather than a `Date` round trip: `Date`
 * rolls 2026-02-30 over to March and maps years 0–99 to the 1900s.
 */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether `year-month-day` (month 1–12) is a real day of the Gregorian calendar, from year 1. */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false;
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}
