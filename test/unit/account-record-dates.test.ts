/** The date-time check of account records (docs/behaviour.md#accounts) against the plain regular-expression reading of it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isDateTimeWithoutZone } from '../../src/adapters/core/account-record.js';
import { isCalendarDate } from '../../src/domain/calendar-date.js';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

function reference(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  return isCalendarDate(y, mo, d) && h <= 23 && mi <= 59 && s <= 59;
}

const pad = (width: number, max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(width, '0'));
/** Well-formed date-times, in and out of range, some with one character replaced. */
const shaped = fc
  .tuple(pad(4, 9999), pad(2, 19), pad(2, 39), pad(2, 29), pad(2, 69), pad(2, 69))
  .map(([y, mo, d, h, mi, s]) => `${y}-${mo}-${d}T${h}:${mi}:${s}`);
const mutated = fc
  .tuple(shaped, fc.nat(18), fc.constantFrom('x', '/', ' ', ':', '-', 'T', '٣', '0', '9', '\u0000'))
  .map(([value, at, character]) => value.slice(0, at) + character + value.slice(at + 1));

describe('isDateTimeWithoutZone', () => {
  it('agrees with the regular expression on well-formed, out-of-range, mutated and arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(shaped, mutated, fc.string({ maxLength: 24 })), (value) => {
        assert.equal(isDateTimeWithoutZone(value), reference(value), value);
      }),
      { numRuns: 20_000 },
    );
  });

  it('examples', () => {
    assert.equal(isDateTimeWithoutZone('2024-02-29T23:59:59'), true);
    assert.equal(isDateTimeWithoutZone('0001-01-01T00:00:00'), true);
    assert.equal(isDateTimeWithoutZone('2023-02-29T00:00:00'), false);
    assert.equal(isDateTimeWithoutZone('0000-01-01T00:00:00'), false);
    assert.equal(isDateTimeWithoutZone('2024-01-01T24:00:00'), false);
    assert.equal(isDateTimeWithoutZone('2024-01-01T00:00:00Z'), false);
    assert.equal(isDateTimeWithoutZone('2024-01-01 00:00:00'), false);
  });
});
