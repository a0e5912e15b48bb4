/**
 * One request's time for the database (docs/operations.md#one-database-deadline-per-request),
 * on an injected clock: each wait gets what the earlier ones left, and the audit row's wait too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditTrail } from '../../src/app/audit-trail.js';
import type { AuditEvent, AuditLog } from '../../src/ports/audit-log.js';
import { DatabaseDeadline } from '../../src/ports/database-deadline.js';
import { FakeClock } from '../support/fake-clock.js';

/** A monotonic clock that moves only when told. */
class Stopwatch {
  ms = 1_000;
  readonly now = (): number => this.ms;
}

const spent = (): Error => new Error('spent');

describe('DatabaseDeadline', () => {
  it('gives each wait what the earlier ones left, counting the time of failed waits too', async () => {
    const clock = new Stopwatch();
    const deadline = new DatabaseDeadline(1_000, clock.now);
    const given: number[] = [];
    assert.equal(
      await deadline.wait(async (ms) => {
        given.push(ms);
        clock.ms += 300;
        return 'first';
      }, spent),
      'first',
    );
    // Time outside a wait (the core, the CPU) does not count.
    clock.ms += 5_000;
    await assert.rejects(
      deadline.wait(async (ms) => {
        given.push(ms);
        clock.ms += 450;
        throw new Error('no answer');
      }, spent),
      /no answer/,
    );
    assert.deepEqual(given, [1_000, 700]);
    assert.equal(deadline.remainingMs, 250);
  });

  it('gives no wait more than its cap (the database timeout of one statement)', async () => {
    const deadline = new DatabaseDeadline(5_000, new Stopwatch().now);
    assert.equal(await deadline.wait(async (ms) => ms, spent, 3_000), 3_000);
  });

  it('once the time is used up, fails every later wait at once without starting it', async () => {
    const clock = new Stopwatch();
    const deadline = new DatabaseDeadline(500, clock.now);
    // A timer fires late: the wait took longer than it was given.
    await assert.rejects(
      deadline.wait(async () => {
        clock.ms += 520;
        throw new Error('timed out');
      }, spent),
    );
    assert.equal(deadline.remainingMs, 0);
    let started = false;
    await assert.rejects(
      deadline.wait(async () => {
        started = true;
      }, spent),
      /spent/,
    );
    assert.equal(started, false);
  });
});

describe('AuditTrail within a request deadline', () => {
  const ENTRY = {
    type: 'accounts.listed',
    outcome: 'success',
    reason: null,
    actor: 'client',
    clientId: 'cg_unit',
    platform: 'unit',
    customerId: 'c-1',
    requestId: 'req-deadline',
  } as const;

  /** A log whose writes end when the test says so. */
  class HeldLog implements AuditLog {
    readonly writes: Array<{ event: AuditEvent; fail: (error: Error) => void; finish: () => void }> = [];
    record(event: AuditEvent): Promise<void> {
      return new Promise<void>((finish, fail) => this.writes.push({ event, finish, fail }));
    }
    async list(): Promise<never[]> {
      return [];
    }
  }

  it('waits for the row only as long as the deadline has left', async () => {
    const clock = new Stopwatch();
    const deadline = new DatabaseDeadline(1_000, clock.now);
    await deadline.wait(async () => void (clock.ms += 960), spent);
    const log = new HeldLog();
    const trail = new AuditTrail(log, new FakeClock(), {
      // Far above the 40 ms the deadline leaves, so that a late timer on a loaded machine is
      // never taken for a wait of the trail's own length.
      waitMs: 60_000,
      onFailure: () => assert.fail('no failure expected'),
    });
    const started = performance.now();
    await trail.record(ENTRY, deadline);
    const waited = performance.now() - started;
    assert.ok(waited >= 35 && waited < 30_000, `waited ${Math.round(waited)} ms for 40 ms left`);
    log.writes[0]!.finish();
    await trail.drain();
  });

  it('does not wait at all once the database used the deadline up; the write goes on, its failure is reported with the event', async () => {
    const clock = new Stopwatch();
    const deadline = new DatabaseDeadline(500, clock.now);
    await assert.rejects(
      deadline.wait(async () => {
        clock.ms += 500;
        throw new Error('no answer');
      }, spent),
    );
    const log = new HeldLog();
    const failures: AuditEvent[] = [];
    const trail = new AuditTrail(log, new FakeClock(), {
      waitMs: 2_000,
      onFailure: (_error, event) => void failures.push(event),
    });
    const started = performance.now();
    await trail.record(ENTRY, deadline);
    // Waiting for the row would take the trail's patience (2000 ms).
    assert.ok(performance.now() - started < 1000, 'answered without waiting for the row');
    assert.equal(log.writes.length, 1, 'the row is still written');
    log.writes[0]!.fail(new Error('database down'));
    await trail.drain();
    assert.deepEqual(
      failures.map((event) => event.requestId),
      ['req-deadline'],
    );
  });
});
