import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { needsRenewal } from '../../src/domain/association.js';
import { FakeClock } from '../support/fake-clock.js';

describe('needsRenewal (now >= expiresAt - skew)', () => {
  const expiresAt = new Date('2026-03-01T12:15:00.000Z');
  const skew = 30;

  it('keeps a session well before the skew window', () => {
    const clock = new FakeClock('2026-03-01T12:00:00.000Z');
    assert.equal(needsRenewal(expiresAt, clock.now(), skew), false);
    clock.set('2026-03-01T12:14:29.999Z');
    assert.equal(needsRenewal(expiresAt, clock.now(), skew), false);
  });

  it('renews from the first instant of the skew window', () => {
    const clock = new FakeClock('2026-03-01T12:14:30.000Z');
    assert.equal(needsRenewal(expiresAt, clock.now(), skew), true);
    clock.advance(15);
    assert.equal(needsRenewal(expiresAt, clock.now(), skew), true);
  });

  it('renews at and after expiry', () => {
    const clock = new FakeClock(expiresAt);
    assert.equal(needsRenewal(expiresAt, clock.now(), skew), true);
    clock.advance(3600);
    assert.equal(needsRenewal(expiresAt, clock.now(), skew), true);
  });

  it('with zero skew renews exactly at expiry', () => {
    assert.equal(needsRenewal(expiresAt, new Date(expiresAt.getTime() - 1), 0), false);
    assert.equal(needsRenewal(expiresAt, expiresAt, 0), true);
  });
});
