/**
 * The audit trail's promise to its callers: it waits for the write, but never
 * longer than its patience, never throws, and reports every failed write.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditTrail, type AuditEntry } from '../../src/app/audit-trail.js';
import type { AuditEvent, AuditLog, AuditRecord } from '../../src/ports/audit-log.js';
import { FakeClock } from '../support/fake-clock.js';

const ENTRY: AuditEntry = {
  type: 'token.issued',
  outcome: 'success',
  reason: null,
  actor: 'client',
  clientId: 'cg_unit',
  platform: 'unit',
  customerId: null,
  requestId: 'req-unit',
};

class ScriptedLog implements AuditLog {
  readonly written: AuditEvent[] = [];
  constructor(private readonly write: (event: AuditEvent) => Promise<void>) {}
  async record(event: AuditEvent): Promise<void> {
    await this.write(event);
    this.written.push(event);
  }
  async list(): Promise<AuditRecord[]> {
    return [];
  }
}

describe('AuditTrail', () => {
  it('resolves once the event is written, stamped with the clock', async () => {
    const clock = new FakeClock('2026-03-01T08:00:00.000Z');
    const log = new ScriptedLog(async () => {});
    const trail = new AuditTrail(log, clock, { waitMs: 1_000, onFailure: () => assert.fail('no failure expected') });
    await trail.record(ENTRY);
    // An entry without an institution is stored with none (null).
    assert.deepEqual(log.written, [{ ...ENTRY, institution: null, occurredAt: new Date('2026-03-01T08:00:00.000Z') }]);
  });

  it('keeps every field of an entry, and the count and address of an aggregated one', async () => {
    const log = new ScriptedLog(async () => {});
    const trail = new AuditTrail(log, new FakeClock('2026-03-01T08:00:00.000Z'), {
      waitMs: 1_000,
      onFailure: () => assert.fail('no failure expected'),
    });
    const full: AuditEntry = { ...ENTRY, institution: 'bank-a', customerId: 'cust-1' };
    const aggregated: AuditEntry = {
      ...ENTRY,
      type: 'token.denied',
      outcome: 'failure',
      reason: 'invalid_client',
      clientId: null,
      platform: null,
      requestId: null,
      count: 7,
      sourceIp: '203.0.113.9',
    };
    await trail.record(full);
    await trail.record(aggregated);
    const occurredAt = new Date('2026-03-01T08:00:00.000Z');
    assert.deepEqual(log.written, [
      { ...full, occurredAt },
      { ...aggregated, institution: null, occurredAt },
    ]);
  });

  it('never throws: a failed write (rejected or thrown) is reported with the event', async () => {
    const failures: Array<[unknown, AuditEvent]> = [];
    const onFailure = (error: unknown, event: AuditEvent) => void failures.push([error, event]);
    const rejecting = new AuditTrail(
      new ScriptedLog(() => Promise.reject(new Error('database down'))),
      new FakeClock(),
      { waitMs: 1_000, onFailure },
    );
    await rejecting.record(ENTRY);
    const throwing: AuditLog = {
      record: () => {
        throw new Error('synchronous failure');
      },
      list: async () => [],
    };
    await new AuditTrail(throwing, new FakeClock(), { waitMs: 1_000, onFailure }).record(ENTRY);
    assert.deepEqual(
      failures.map(([error]) => (error as Error).message),
      ['database down', 'synchronous failure'],
    );
    assert.equal(failures[0]![1].requestId, 'req-unit');
  });

  it('stops waiting after waitMs; the write goes on and drain() waits for it', async () => {
    let finish!: () => void;
    const log = new ScriptedLog(() => new Promise<void>((resolve) => (finish = resolve)));
    const trail = new AuditTrail(log, new FakeClock(), {
      waitMs: 30,
      onFailure: () => assert.fail('no failure expected'),
    });
    const started = Date.now();
    await trail.record(ENTRY);
    // The write is held until the test finishes it below: record() returning at all is the
    // proof that it stopped waiting; only the lower bound is about time.
    const waited = Date.now() - started;
    assert.ok(waited >= 25, `waited ${waited} ms`);
    assert.equal(log.written.length, 0, 'not written yet');
    let drained = false;
    const draining = trail.drain().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(drained, false, 'drain waits for the pending write');
    finish();
    await draining;
    assert.equal(log.written.length, 1);
  });
});
