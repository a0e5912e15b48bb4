/** The deadline of one core call (`adapters/core/call-deadline.ts`): fires after its time, never after release. */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { CallDeadline } from '../../src/adapters/core/call-deadline.js';

describe('CallDeadline', () => {
  it('aborts its signal once its time has passed', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const deadline = new CallDeadline(500);
      mock.timers.tick(499);
      assert.equal(deadline.expired, false);
      mock.timers.tick(1);
      assert.equal(deadline.expired, true);
      assert.equal(deadline.signal.aborted, true);
    } finally {
      mock.timers.reset();
    }
  });

  it('never fires once released: a call that ended leaves no timer behind', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const deadline = new CallDeadline(500);
      let aborts = 0;
      deadline.signal.addEventListener('abort', () => (aborts += 1));
      deadline.release();
      mock.timers.tick(10_000);
      assert.equal(aborts, 0);
      assert.equal(deadline.expired, false);
    } finally {
      mock.timers.reset();
    }
  });
});
