/**
 * `ports/never-empty-lru-cache.ts`: a cache whose misses do not clear the whole storage
 * (lru-cache 11 does when its last entry goes), and which otherwise behaves as lru-cache.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NeverEmptyLRUCache } from '../../src/ports/never-empty-lru-cache.js';

describe('NeverEmptyLRUCache', () => {
  it('loads, caches, forgets and clears like lru-cache', async () => {
    let loads = 0;
    const cache = new NeverEmptyLRUCache<string, { n: number }>({ max: 10, fetchMethod: async (key) => (key === 'absent' ? undefined : { n: (loads += 1) }) });
    assert.deepEqual(await cache.fetch('a'), { n: 1 });
    assert.deepEqual(await cache.fetch('a'), { n: 1 }, 'cached');
    assert.equal(await cache.fetch('absent'), undefined);
    assert.equal(cache.has('absent'), false, 'a miss is not kept');
    cache.delete('a');
    assert.deepEqual(await cache.fetch('a'), { n: 2 });
    cache.clear();
    assert.equal(cache.has('a'), false);
    assert.deepEqual(await cache.fetch('a'), { n: 3 });
  });

  it('keeps misses cheap on a large, empty cache (lru-cache alone refills its whole storage on each)', async () => {
    // lru-cache alone: a few milliseconds per miss at this size (`fill()` over 1,000,000-long arrays);
    // 200 misses would take about a second. With the placeholder they take a few milliseconds.
    const cache = new NeverEmptyLRUCache<string, object>({ max: 1_000_000, ttl: 5000, fetchMethod: async () => undefined });
    const started = performance.now();
    for (let i = 0; i < 200; i += 1) await cache.fetch(`k${i}`);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 300, `200 misses took ${elapsed.toFixed(0)} ms`);
  });
});
