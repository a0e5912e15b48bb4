/**
 * A log line about a failing dependency at most once per interval: during an outage every
 * request would otherwise write one. The line says how many were left out since the last.
 */
import type { Clock } from '../../ports/clock.js';

/** `write` for the first error and then at most every `intervalMs` on `clock`, with the count skipped since. */
export function atMostEvery(
  clock: Clock,
  intervalMs: number,
  write: (error: unknown, suppressedSinceLast: number) => void,
): (error: unknown) => void {
  let lastMs = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (error) => {
    const now = clock.now().getTime();
    if (now - lastMs < intervalMs) {
      suppressed += 1;
      return;
    }
    lastMs = now;
    write(error, suppressed);
    suppressed = 0;
  };
}
