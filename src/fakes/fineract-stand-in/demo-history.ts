/**
 * The demo current account's everyday history (docs/cores/fineract.md#stand-in): deposits and
 * withdrawals from 1 November 2025 to 27 February 2026, two to four a day, enough for the
 * transactions listing to take several search pages and several listing pages. Generated the
 * same way every time; one in 97 is reversed (it stays listed, `reversed` true).
 */
/** A row as `stand-in-data.ts` holds it (named here, so that the data may import this file). */
interface EverydayRow {
  readonly id: number;
  readonly kind: 'deposit' | 'withdrawal';
  readonly date: readonly [number, number, number];
  readonly amount: number;
  readonly reversed?: boolean;
}

/** The first id of the generated rows: above every other demo transaction's. */
const FIRST_ID = 110_001;
const FIRST_DAY = Date.UTC(2025, 10, 1);
const DAYS = 119;
const REVERSED_EVERY = 97;

export function everydayHistory(): EverydayRow[] {
  const made: EverydayRow[] = [];
  for (let offset = 0; offset < DAYS; offset += 1) {
    const at = new Date(FIRST_DAY + offset * 86_400_000);
    const date: EverydayRow['date'] = [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate()];
    for (let slot = 0; slot < 2 + (offset % 3); slot += 1) {
      const id = FIRST_ID + made.length;
      made.push({
        id,
        kind: slot === 0 && offset % 14 === 0 ? 'deposit' : slot % 2 === 0 ? 'deposit' : 'withdrawal',
        date,
        // Quarters: running balances stay exact in binary.
        amount: 5 + ((offset * 7 + slot * 13) % 40) * 0.25,
        ...(made.length % REVERSED_EVERY === REVERSED_EVERY - 1 ? { reversed: true } : {}),
      });
    }
  }
  return made;
}
