/** An outage's log line, written at most once per interval of the injected clock. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { atMostEvery } from '../../src/adapters/logging/at-most-every.js';
import { FakeClock } from '../support/fake-clock.js';

describe('atMostEvery', () => {
  it('writes the first call, drops and counts the calls within the interval, and writes again after it', () => {
    const clock = new FakeClock();
    const written: Array<[number, string]> = [];
    const log = atMostEvery(10_000, clock, (suppressed, what: string) => written.push([suppressed, what]));
    log('first');
    log('dropped');
    clock.advance(9);
    log('dropped too');
    clock.advance(1);
    log('second');
    log('dropped again');
    assert.deepEqual(written, [
      [0, 'first'],
      [2, 'second'],
    ]);
  });
});
