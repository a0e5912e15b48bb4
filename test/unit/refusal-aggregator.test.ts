/** Refusals before authentication counted per address, type and reason per minute, bounded in keys. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OVERFLOW_REASON, RefusalAggregator } from '../../src/app/refusal-aggregator.js';
import type { AuditEvent } from '../../src/ports/audit-log.js';
import { FakeClock } from '../support/fake-clock.js';

function aggregator(maxKeys?: number) {
  const clock = new FakeClock('2026-03-01T12:00:10.000Z');
  const written: AuditEvent[][] = [];
  const refusals = new RefusalAggregator(
    clock,
    (events) => written.push(events),
    maxKeys === undefined ? {} : { maxKeys },
  );
  return { clock, written, refusals };
}

describe('RefusalAggregator', () => {
  it('writes nothing until the minute closes, then one row per key with its count', () => {
    const { clock, written, refusals } = aggregator();
    for (let i = 0; i < 50; i += 1)
      refusals.add({ type: 'access.denied', reason: 'invalid_token', sourceIp: '192.0.2.1' });
    refusals.add({ type: 'access.denied', reason: 'missing_token', sourceIp: '192.0.2.1' });
    refusals.closeDue();
    assert.equal(written.length, 0);
    clock.advance(50);
    refusals.closeDue();
    assert.equal(written.length, 1);
    assert.deepEqual(
      written[0]!.map((event) => [event.reason, event.count, event.sourceIp, event.occurredAt.toISOString()]),
      [
        ['invalid_token', 50, '192.0.2.1', '2026-03-01T12:00:00.000Z'],
        ['missing_token', 1, '192.0.2.1', '2026-03-01T12:00:00.000Z'],
      ],
    );
    refusals.closeDue();
    assert.equal(written.length, 1, 'a closed minute is written once');
  });

  it('counts beyond maxKeys keys in one overflow row per event type, without an address', () => {
    const { written, refusals } = aggregator(3);
    for (let i = 0; i < 10; i += 1)
      refusals.add({ type: 'access.denied', reason: 'invalid_token', sourceIp: `192.0.2.${i}` });
    refusals.add({ type: 'token.denied', reason: 'invalid_client', sourceIp: '192.0.2.99' });
    refusals.add({ type: 'access.denied', reason: 'invalid_token', sourceIp: '192.0.2.0' });
    refusals.close();
    assert.deepEqual(
      written[0]!.map((event) => [event.type, event.reason, event.sourceIp, event.count]),
      [
        ['access.denied', 'invalid_token', '192.0.2.0', 2],
        ['access.denied', 'invalid_token', '192.0.2.1', 1],
        ['access.denied', 'invalid_token', '192.0.2.2', 1],
        ['access.denied', OVERFLOW_REASON, null, 7],
        ['token.denied', OVERFLOW_REASON, null, 1],
      ],
    );
  });
});
