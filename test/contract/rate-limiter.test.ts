/**
 * The rate-limiter contract: the same suite runs against both stores, in memory
 * and on the real Redis (each test on keys of its own under a prefix unique to
 * this run), with the same fake clock. Then what only Redis promises: processes
 * share budgets, the script is atomic under concurrency, keys expire, and an
 * unreachable Redis rejects at once instead of holding requests.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.js';
import { RedisRateLimiter } from '../../src/adapters/rate-limit/redis-rate-limiter.js';
import { RequestThrottle } from '../../src/app/request-throttle.js';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';
import { FakeClock } from '../support/fake-clock.js';
import { deleteRedisPrefix, REDIS_URL, redisSkip, uniqueRedisPrefix } from '../support/redis.js';
import { freePort } from '../support/free-port.js';

interface Store {
  readonly name: string;
  readonly skip: string | false;
  open(clock: FakeClock): Promise<RateLimiter>;
  cleanUp(): Promise<void>;
}

const redisPrefix = uniqueRedisPrefix('contract');
const STORES: readonly Store[] = [
  { name: 'memory', skip: false, open: async (clock) => new MemoryRateLimiter({ clock }), cleanUp: async () => {} },
  {
    name: 'redis',
    skip: redisSkip,
    async open(clock) {
      const limiter = new RedisRateLimiter({ url: REDIS_URL, clock, keyPrefix: redisPrefix });
      await limiter.connect();
      return limiter;
    },
    cleanUp: () => deleteRedisPrefix(redisPrefix),
  },
];

const key = () => `k:${randomUUID()}`;

/** A port nothing listens on (yet). */

function installed(command: string): boolean {
  try {
    execFileSync('which', [command], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function rateLimiterContract(store: Store): void {
  const clock = new FakeClock();
  let limiter: RateLimiter;
  before(async () => {
    limiter = await store.open(clock);
  });
  after(async () => {
    await limiter?.close();
    await store.cleanUp();
  });

  it('admits a burst of `limit`, counting down `remaining`, then refuses with the wait in whole seconds', async () => {
    const k = key();
    for (let remaining = 4; remaining >= 0; remaining -= 1) {
      assert.deepEqual(await limiter.hit(k, 5, 60), { allowed: true, remaining, retryAfterSeconds: 0 });
    }
    assert.deepEqual(await limiter.hit(k, 5, 60), { allowed: false, remaining: 0, retryAfterSeconds: 12 });
  });

  it('refills evenly over the window, and a refused request spends nothing', async () => {
    const k = key();
    for (let i = 0; i < 3; i += 1) await limiter.hit(k, 3, 30);
    for (let i = 0; i < 5; i += 1) assert.equal((await limiter.hit(k, 3, 30)).allowed, false);
    clock.advance(9.5);
    assert.deepEqual(await limiter.hit(k, 3, 30), { allowed: false, remaining: 0, retryAfterSeconds: 1 });
    clock.advance(0.5);
    assert.deepEqual(await limiter.hit(k, 3, 30), { allowed: true, remaining: 0, retryAfterSeconds: 0 });
    clock.advance(30);
    assert.deepEqual(
      await limiter.hit(k, 3, 30),
      { allowed: true, remaining: 2, retryAfterSeconds: 0 },
      'a full bucket again',
    );
  });

  it('peek answers what a hit would, counting nothing', async () => {
    const k = key();
    assert.deepEqual(await limiter.peek(k, 2, 60), { allowed: true, remaining: 1, retryAfterSeconds: 0 });
    assert.deepEqual(await limiter.peek(k, 2, 60), { allowed: true, remaining: 1, retryAfterSeconds: 0 });
    await limiter.hit(k, 2, 60);
    await limiter.hit(k, 2, 60);
    assert.deepEqual(await limiter.peek(k, 2, 60), { allowed: false, remaining: 0, retryAfterSeconds: 30 });
    clock.advance(30);
    assert.deepEqual(await limiter.peek(k, 2, 60), { allowed: true, remaining: 0, retryAfterSeconds: 0 });
  });

  it('keeps keys apart', async () => {
    const [a, b] = [key(), key()];
    await limiter.hit(a, 1, 60);
    assert.equal((await limiter.hit(a, 1, 60)).allowed, false);
    assert.equal((await limiter.hit(b, 1, 60)).allowed, true);
  });

  it('admits exactly `limit` of many concurrent hits', async () => {
    const k = key();
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.hit(k, 20, 60)));
    assert.equal(decisions.filter((d) => d.allowed).length, 20);
    assert.deepEqual(
      decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((x, y) => x - y),
      Array.from({ length: 20 }, (_, i) => i),
      'every admitted hit saw a distinct remaining count',
    );
  });

  it('handles limits that do not divide the window and long windows alike', async () => {
    for (const [limit, windowSeconds] of [
      [7, 60],
      [30, 300],
      [6000, 60],
      [1, 86_400],
    ] as const) {
      const k = key();
      for (let i = 0; i < Math.min(limit, 100); i += 1)
        assert.ok((await limiter.hit(k, limit, windowSeconds)).allowed, `${limit}/${windowSeconds}s #${i + 1}`);
      if (limit <= 100) {
        const refused = await limiter.hit(k, limit, windowSeconds);
        assert.equal(refused.allowed, false, `${limit}/${windowSeconds}s over budget`);
        assert.equal(refused.retryAfterSeconds, Math.ceil(windowSeconds / limit));
      }
    }
  });
}

for (const store of STORES) {
  describe(`RateLimiter contract (${store.name})`, { skip: store.skip }, () => rateLimiterContract(store));
}

describe('RedisRateLimiter', { skip: redisSkip }, () => {
  const prefix = uniqueRedisPrefix('redis-only');
  after(() => deleteRedisPrefix(prefix));

  it('shares one budget between limiters of separate processes', async () => {
    const clock = new FakeClock();
    const [first, second] = [
      new RedisRateLimiter({ url: REDIS_URL, clock, keyPrefix: prefix }),
      new RedisRateLimiter({ url: REDIS_URL, clock, keyPrefix: prefix }),
    ];
    try {
      await Promise.all([first.connect(), second.connect()]);
      const k = key();
      const decisions = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? first : second).hit(k, 10, 60)),
      );
      assert.equal(decisions.filter((d) => d.allowed).length, 10);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('stores one key per bucket under the prefix, expiring when the bucket is full again', async () => {
    const clock = new FakeClock();
    const limiter = new RedisRateLimiter({ url: REDIS_URL, clock, keyPrefix: prefix });
    const redis = new Redis(REDIS_URL);
    try {
      await limiter.connect();
      const k = key();
      await limiter.hit(k, 4, 60);
      await limiter.hit(k, 4, 60);
      const ttl = await redis.pttl(`${prefix}${k}`);
      assert.ok(ttl > 29_000 && ttl <= 30_000, `TTL ${ttl} ms: the time until two more hits are refilled`);
      const peeked = key();
      await limiter.peek(peeked, 4, 60);
      assert.equal(await redis.exists(`${prefix}${peeked}`), 0, 'peek writes nothing');
    } finally {
      redis.disconnect();
      await limiter.close();
    }
  });

  it('rejects at once when Redis cannot be reached, and the throttle admits the request', async () => {
    const clock = new FakeClock();
    const changes: string[] = [];
    // Port 1 on loopback: nothing listens, the connection is refused.
    const limiter = new RedisRateLimiter({
      url: 'redis://127.0.0.1:1',
      clock,
      keyPrefix: prefix,
      onConnectionChange: (state) => changes.push(state),
    });
    try {
      await assert.rejects(limiter.connect());
      const started = performance.now();
      await assert.rejects(limiter.hit(key(), 1, 60));
      // Waiting for a connection would take its connect timeout (1000 ms).
      assert.ok(performance.now() - started < 500, 'no waiting for a connection');
      const failures: unknown[] = [];
      const throttle = new RequestThrottle(
        limiter,
        {
          gatewayPerClientPerMinute: 1,
          tokenPerClientPerMinute: 1,
          tokenPerIpPerMinute: 1,
          authFailuresPerIp: 1,
          authFailureWindowSeconds: 60,
          bearerFailuresPerIpPerMinute: 1,
        },
        (e) => failures.push(e),
      );
      for (let i = 0; i < 3; i += 1) await throttle.admitGatewayRequest('cg_a');
      assert.equal(throttle.limiterFailures, 3);
      assert.deepEqual(changes, ['down'], 'the outage is reported once');
    } finally {
      await limiter.close();
    }
  });

  it(
    'limits again as soon as Redis comes back',
    { skip: installed('redis-server') ? false : 'redis-server is not installed' },
    async () => {
      const port = await freePort();
      const changes: string[] = [];
      const limiter = new RedisRateLimiter({
        url: `redis://127.0.0.1:${port}`,
        clock: new FakeClock(),
        keyPrefix: prefix,
        onConnectionChange: (state) => changes.push(state),
      });
      await assert.rejects(limiter.connect());
      const redis = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { cwd: tmpdir(), stdio: 'ignore' },
      );
      try {
        const k = key();
        let first;
        for (const deadline = Date.now() + 5000; first === undefined && Date.now() < deadline;) {
          first = await limiter.hit(k, 1, 60).catch(() => undefined);
          if (first === undefined) await sleep(50);
        }
        assert.equal(first?.allowed, true, 'reconnected in the background');
        assert.equal((await limiter.hit(k, 1, 60)).allowed, false, 'and limits again');
        assert.deepEqual(changes, ['down', 'up']);
      } finally {
        redis.kill();
        await limiter.close();
      }
    },
  );
});
