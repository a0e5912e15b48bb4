/**
 * A log line an outage would otherwise write on every request (a shared store failing,
 * each call falling back): written at most once per interval of the injected clock, with
 * how many calls were held back since the last one.
 */
import type { Clock } from '../../ports/clock.js';

/** The interval the outage lines of coregate's fallbacks use. */
export const OUTAGE_LOG_INTERVAL_MS = 10_000;

/**
 * `write`, called at most once per `intervalMs` of `clock`: the calls in between are
 * dropped and counted, and the next call that writes is told how many (`suppressedSinceLast`).
 */
export function atMostEvery<Args extends unknown[]>(
  intervalMs: number,
  clock: Clock,
  write: (suppressedSinceLast: number, ...args: Args) => void,
): (...args: Args) => void {
  let lastMs = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (...args) => {
    const now = clock.now().getTime();
    if (now - lastMs < intervalMs) {
      suppressed += 1;
      return;
    }
    lastMs = now;
    const held = suppressed;
    suppressed = 0;
    write(held, ...args);
  };
}
