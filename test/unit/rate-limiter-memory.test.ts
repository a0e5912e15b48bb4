/**
 * The in-memory rate-limit store and the token-bucket rule it applies
 * (`domain/rate-limit.ts`), with a fake clock. The behaviour both stores share is
 * in test/contract/rate-limiter.test.ts; this file covers what only memory has:
 * its size bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.js';
import { gcraStep } from '../../src/domain/rate-limit.js';
import { FakeClock } from '../support/fake-clock.js';

describe('gcraStep (token bucket rule)', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');

  it('admits a burst of exactly `limit` for limits that do not divide the window evenly', () => {
    for (const limit of [1, 3, 7, 30, 600, 6000, 9999]) {
      let tat: number | undefined;
      for (let i = 1; i <= limit; i += 1) {
        const step = gcraStep(tat, now, limit, 60);
        assert.ok(step.allowed, `limit ${limit}: request ${i} is admitted`);
        assert.equal(step.remaining, limit - i, `limit ${limit}: remaining after request ${i}`);
        tat = step.tat;
      }
      const refused = gcraStep(tat, now, limit, 60);
      assert.equal(refused.allowed, false, `limit ${limit}: request ${limit + 1} is refused`);
      assert.equal(refused.tat, tat, 'a refused request changes nothing');
      assert.equal(refused.retryAfterSeconds, Math.max(1, Math.ceil(60 / limit)));
    }
  });

  it('refills one request every window/limit', () => {
    let tat: number | undefined;
    for (let i = 0; i < 3; i += 1) tat = gcraStep(tat, now, 3, 30).tat;
    // (up to 1 ms of slack absorbs float rounding of the interval)
    assert.equal(gcraStep(tat, now + 9_998, 3, 30).allowed, false);
    const refilled = gcraStep(tat, now + 10_000, 3, 30);
    assert.ok(refilled.allowed);
    assert.equal(refilled.remaining, 0);
    assert.equal(refilled.ttlMs, 30_000);
  });

  it('forgets nothing it needs: a key whose time has passed holds a full bucket', () => {
    const fresh = gcraStep(undefined, now, 5, 60);
    const stale = gcraStep(now - 1, now, 5, 60);
    assert.deepEqual(stale, fresh);
  });
});

describe('MemoryRateLimiter', () => {
  it('counts per key, refuses with the wait, and admits again once the bucket refills', async () => {
    const clock = new FakeClock();
    const limiter = new MemoryRateLimiter({ clock });
    for (let i = 0; i < 2; i += 1) assert.ok((await limiter.hit('a', 2, 60)).allowed);
    assert.deepEqual(await limiter.hit('a', 2, 60), { allowed: false, remaining: 0, retryAfterSeconds: 30 });
    assert.ok((await limiter.hit('b', 2, 60)).allowed, 'another key has its own budget');
    clock.advance(29);
    assert.deepEqual(await limiter.hit('a', 2, 60), { allowed: false, remaining: 0, retryAfterSeconds: 1 });
    clock.advance(1);
    assert.deepEqual(await limiter.hit('a', 2, 60), { allowed: true, remaining: 0, retryAfterSeconds: 0 });
  });

  it('keeps at most maxKeys keys, dropping full buckets first, then the least recently hit', async () => {
    const clock = new FakeClock();
    const limiter = new MemoryRateLimiter({ clock, maxKeys: 3 });
    await limiter.hit('old', 1, 60);
    clock.advance(61); // "old" is full again: the first to go
    await limiter.hit('a', 1, 60);
    await limiter.hit('b', 1, 60);
    await limiter.hit('c', 1, 60);
    assert.equal(limiter.size, 3);
    assert.equal((await limiter.peek('a', 1, 60)).allowed, false, '"a" was kept: "old" went instead');

    clock.advance(0.5); // within the sweep interval: nothing is full, the least recently hit goes
    await limiter.hit('d', 1, 60);
    assert.equal(limiter.size, 3);
    assert.equal((await limiter.peek('a', 1, 60)).allowed, true, '"a", least recently hit, was dropped');
    assert.equal((await limiter.peek('d', 1, 60)).allowed, false);
  });

  it('holds a flood of distinct keys within its bound', async () => {
    const clock = new FakeClock();
    const limiter = new MemoryRateLimiter({ clock, maxKeys: 1000 });
    for (let i = 0; i < 20_000; i += 1) await limiter.hit(`ip:${i}`, 30, 300);
    assert.equal(limiter.size, 1000);
  });

  it('close() forgets every key', async () => {
    const limiter = new MemoryRateLimiter({ clock: new FakeClock() });
    await limiter.hit('a', 1, 60);
    await limiter.close();
    assert.equal(limiter.size, 0);
  });
});

describe('MemoryRateLimiter.adopt (going on from another store)', () => {
  it('after adopting each answer of another store, decides the next request as that store would', async () => {
    for (const [limit, window] of [
      [5, 300],
      [3, 30],
      [7, 60],
    ] as const) {
      for (let spent = 0; spent <= limit + 1; spent += 1) {
        const clock = new FakeClock();
        const other = new MemoryRateLimiter({ clock });
        const local = new MemoryRateLimiter({ clock });
        for (let i = 0; i < spent; i += 1) local.adopt('k', limit, window, await other.hit('k', limit, window), true);
        local.adopt('k', limit, window, await other.peek('k', limit, window), false);
        const expected = await other.peek('k', limit, window);
        const actual = await local.peek('k', limit, window);
        assert.equal(actual.allowed, expected.allowed, `limit ${limit}, ${spent} spent`);
        assert.equal(actual.remaining, expected.remaining, `limit ${limit}, ${spent} spent`);
        // A refusal is rebuilt from whole seconds: at most one second stricter.
        assert.ok(
          actual.retryAfterSeconds - expected.retryAfterSeconds <= 1 &&
            actual.retryAfterSeconds >= expected.retryAfterSeconds,
          `limit ${limit}, ${spent} spent`,
        );
      }
    }
  });

  it('keeps no entry for a full bucket', async () => {
    const clock = new FakeClock();
    const local = new MemoryRateLimiter({ clock });
    local.adopt('k', 5, 60, { allowed: true, remaining: 4, retryAfterSeconds: 0 }, false);
    assert.equal(local.size, 0);
  });
});
