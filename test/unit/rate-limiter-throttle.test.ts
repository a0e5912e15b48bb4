/**
 * The rate-limit policy (`app/request-throttle.ts`) on the memory store with a
 * fake clock: which budget each request spends, the failure budget checked
 * before authentication, IPv6 /64 grouping, limits turned off, and failing open
 * when the store fails.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.js';
import { RequestThrottle, sourceKey, type RateLimitSettings } from '../../src/app/request-throttle.js';
import { ApiError } from '../../src/domain/errors.js';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';
import { FakeClock } from '../support/fake-clock.js';

const SETTINGS: RateLimitSettings = {
  gatewayPerClientPerMinute: 3,
  tokenPerClientPerMinute: 2,
  tokenPerIpPerMinute: 5,
  authFailuresPerIp: 2,
  authFailureWindowSeconds: 300,
  bearerFailuresPerIpPerMinute: 4,
};

function throttle(settings: Partial<RateLimitSettings> = {}) {
  const clock = new FakeClock();
  return { clock, throttle: new RequestThrottle(new MemoryRateLimiter({ clock }), { ...SETTINGS, ...settings }) };
}

async function assertTooMany(promise: Promise<unknown>, retryAfter: number): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(
      error instanceof ApiError && error.code === 'rate_limited' && error.name === 'TooManyRequests',
      String(error),
    );
    assert.equal(error.status, 429);
    assert.equal(error.headers['retry-after'], String(retryAfter));
    assert.deepEqual(error.data, { retryAfter });
    return true;
  });
}

describe('sourceKey', () => {
  it('keeps IPv4 addresses, unmaps IPv4-mapped IPv6, and groups IPv6 by /64', () => {
    assert.equal(sourceKey('203.0.113.7'), '203.0.113.7');
    assert.equal(sourceKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(sourceKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(sourceKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.notEqual(sourceKey('2001:db8:1:3::1'), sourceKey('2001:db8:1:2::1'));
    assert.equal(sourceKey('not an address'), 'not an address');
  });

  it('gives every IPv4 address the key ipaddr.js gives it (the canonical form skips parsing)', () => {
    const octet = fc.oneof(
      fc.integer({ min: 0, max: 255 }).map(String),
      fc.integer({ min: 0, max: 255 }).map((n) => n.toString().padStart(3, '0')),
      fc.constantFrom('256', '999', '-1', '', '0x1f'),
    );
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (octets) => {
        const ip = octets.join('.');
        const expected = ipaddr.isValid(ip) ? ipaddr.process(ip).toString() : ip;
        assert.equal(sourceKey(ip), expected);
      }),
      { numRuns: 2000 },
    );
    // Octal-looking octets are what ipaddr.js makes of them, not a key of their own.
    assert.equal(sourceKey('010.0.0.1'), ipaddr.process('010.0.0.1').toString());
  });
});

describe('RequestThrottle', () => {
  it('refuses a gateway caller before its token is verified once its bearer refusals are spent, and refills', async () => {
    const { throttle: t, clock } = throttle();
    for (let i = 0; i < 4; i += 1) {
      await t.admitGatewayCaller('203.0.113.9');
      await t.recordBearerFailure('203.0.113.9');
    }
    // 4 per minute: one more every 15 s.
    await assertTooMany(t.admitGatewayCaller('203.0.113.9'), 15);
    await assertTooMany(t.admitGatewayCaller('203.0.113.9'), 15);
    assert.equal(t.refused.bearer_failures_ip, 2);
    // Other addresses, and the other budgets of this one, are untouched.
    await t.admitGatewayCaller('203.0.113.10');
    await t.admitTokenRequest('203.0.113.9');
    // A /64 is one source.
    for (let i = 0; i < 4; i += 1) await t.recordBearerFailure(`2001:db8:1:2::${i + 1}`);
    await assertTooMany(t.admitGatewayCaller('2001:db8:1:2::ffff'), 15);
    clock.advance(15);
    await t.admitGatewayCaller('203.0.113.9');
  });

  it('checks no bearer budget when it is 0', async () => {
    const { throttle: t } = throttle({ bearerFailuresPerIpPerMinute: 0 });
    for (let i = 0; i < 50; i += 1) await t.recordBearerFailure('203.0.113.9');
    await t.admitGatewayCaller('203.0.113.9');
  });

  it('gives each client its own gateway budget', async () => {
    const { throttle: t, clock } = throttle();
    for (let i = 0; i < 3; i += 1) await t.admitGatewayRequest('cg_a');
    await assertTooMany(t.admitGatewayRequest('cg_a'), 20);
    await t.admitGatewayRequest('cg_b');
    clock.advance(20);
    await t.admitGatewayRequest('cg_a');
  });

  it('limits token requests per source address and per client', async () => {
    const { throttle: t } = throttle();
    await t.admitClientTokenRequest('cg_a');
    await t.admitClientTokenRequest('cg_a');
    await assertTooMany(t.admitClientTokenRequest('cg_a'), 30);
    for (let i = 0; i < 5; i += 1) await t.admitTokenRequest('198.51.100.1');
    await assertTooMany(t.admitTokenRequest('198.51.100.1'), 12);
    await t.admitTokenRequest('198.51.100.2');
  });

  it('refuses an address before authentication once its failure budget is spent, and lets it retry at the budget pace', async () => {
    const { throttle: t, clock } = throttle({ tokenPerIpPerMinute: 0 });
    await t.admitTokenRequest('2001:db8::1');
    await t.recordAuthenticationFailure('2001:db8::1');
    await t.admitTokenRequest('2001:db8::1');
    await t.recordAuthenticationFailure('2001:db8::1');
    // 2 failures per 300 s: the next failure would fit in 150 s.
    await assertTooMany(t.admitTokenRequest('2001:db8::1'), 150);
    await assertTooMany(t.admitTokenRequest('2001:db8::ffff'), 150);
    await t.admitTokenRequest('2001:db8:0:1::1');
    clock.advance(149);
    await assertTooMany(t.admitTokenRequest('2001:db8::1'), 1);
    clock.advance(1);
    await t.admitTokenRequest('2001:db8::1');
    await t.admitTokenRequest('2001:db8::1'); // checking the budget spends none of it
  });

  it('turns a budget off with a limit of 0', async () => {
    const { throttle: t } = throttle({
      gatewayPerClientPerMinute: 0,
      tokenPerClientPerMinute: 0,
      tokenPerIpPerMinute: 0,
      authFailuresPerIp: 0,
    });
    for (let i = 0; i < 50; i += 1) {
      await t.admitGatewayRequest('cg_a');
      await t.admitTokenRequest('192.0.2.1');
      await t.recordAuthenticationFailure('192.0.2.1');
      await t.admitClientTokenRequest('cg_a');
    }
  });

  it('admits every request when the store fails, reporting each failure', async () => {
    const broken: RateLimiter = {
      hit: () => Promise.reject(new Error('store down')),
      peek: () => Promise.reject(new Error('store down')),
      connect: async () => {},
      close: async () => {},
    };
    const errors: unknown[] = [];
    const t = new RequestThrottle(broken, SETTINGS, (error) => errors.push(error));
    for (let i = 0; i < 10; i += 1) {
      await t.admitGatewayRequest('cg_a');
      await t.admitTokenRequest('192.0.2.1');
      await t.recordAuthenticationFailure('192.0.2.1');
      await t.admitClientTokenRequest('cg_a');
    }
    assert.equal(t.limiterFailures, 50);
    assert.equal(errors.length, 50);
    assert.match(String(errors[0]), /store down/);
  });

  it("opens its store with where to report the store's own failures, counted and logged like a failed call", async () => {
    const clock = new FakeClock();
    const memory = new MemoryRateLimiter({ clock });
    const errors: unknown[] = [];
    const opened: RateLimiter[] = [];
    // Like the Redis breaker: a failed shared call answered from memory, reported, not thrown.
    const open = (onStoreFailure: (error: unknown) => void): RateLimiter => {
      const store: RateLimiter = {
        hit: (key, limit, windowSeconds) => {
          onStoreFailure(new Error('shared store down'));
          return memory.hit(key, limit, windowSeconds);
        },
        peek: (key, limit, windowSeconds) => memory.peek(key, limit, windowSeconds),
        connect: async () => {},
        close: async () => {},
      };
      opened.push(store);
      return store;
    };
    const t = new RequestThrottle(open, SETTINGS, (error) => errors.push(error));
    assert.deepEqual(await t.admitGatewayRequest('cg_a'), { limit: 3, remaining: 2, resetSeconds: 20 });
    await t.admitGatewayRequest('cg_a');
    assert.equal(t.limiterFailures, 2);
    assert.equal(errors.length, 2);
    assert.match(String(errors[0]), /shared store down/);
    assert.equal(opened.length, 1, 'opened once');
    assert.equal(t.limiter, opened[0], 'the opened store is the one exposed');
  });
});
