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
      assert.equal(deadline.signal.reason?.name, 'TimeoutError');
    } finally {
      mock.timers.reset();
    }
  });

  it('never fires once released: a call that ended leaves no timer behind', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const deadline = new CallDeadline(500);
      let aborts = 0;
      deadline.signal.on('abort', () => (aborts += 1));
      deadline.release();
      mock.timers.tick(10_000);
      assert.equal(aborts, 0);
      assert.equal(deadline.expired, false);
    } finally {
      mock.timers.reset();
    }
  });

  it('aborts an undici request in flight when it fires (undici takes an EventEmitter as its signal)', async () => {
    const { createServer } = await import('node:http');
    const { Pool } = await import('undici');
    // A server that never answers: only the deadline ends the call.
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const pool = new Pool(`http://127.0.0.1:${port}`);
    const deadline = new CallDeadline(100);
    const started = Date.now();
    try {
      await assert.rejects(
        pool.request({ path: '/', method: 'GET', signal: deadline.signal }),
        (error: Error) => error.name === 'TimeoutError',
      );
      assert.ok(deadline.expired);
      assert.ok(Date.now() - started < 2_000, 'ended by the deadline, not by a socket timeout');
    } finally {
      deadline.release();
      await pool.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
