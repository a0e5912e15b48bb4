/**
 * The one cache (`ports/loading-cache.ts`) and what is built on it, on a fake clock
 * and a change feed switched by hand: an entry is dropped as soon as a change names
 * it, a read that raced a change is not kept, and while the feed is not live the
 * token endpoint's reads go to the database every time while the bearer check's are
 * bounded by their lifetime.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoadingCache } from '../../src/ports/loading-cache.js';
import { ClientDirectory } from '../../src/app/client-directory.js';
import { InstitutionRegistry } from '../../src/app/institution-registry.js';
import type { ClientRecord } from '../../src/domain/client.js';
import type { InstitutionRecord } from '../../src/domain/institution.js';
import type { CoreConnector } from '../../src/ports/core-connector.js';
import type { InstitutionStore } from '../../src/ports/institution-store.js';
import { FakeClock } from '../support/fake-clock.js';

const TTL_SECONDS = 30;

/** A store answering `value(id)`, counting reads; `hold()` keeps the next reads pending until released. */
function countingLoader<V>(value: (id: string) => V | undefined) {
  let gate: Promise<void> | undefined;
  let release = () => {};
  const loader = {
    reads: 0,
    async load(id: string): Promise<V | undefined> {
      loader.reads += 1;
      const answer = value(id);
      if (gate) await gate;
      return answer;
    },
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release() {
      gate = undefined;
      release();
    },
  };
  return loader;
}

describe('LoadingCache', () => {
  it('while the feed is live, keeps an entry until a change names it, and at most its lifetime', async () => {
    const clock = new FakeClock();
    const feed = { live: true };
    let enabled = true;
    const store = countingLoader(() => ({ enabled }));
    const cache = new LoadingCache(store.load, {
      clock,
      feed,
      ttlSeconds: TTL_SECONDS,
      maxEntries: 100,
      whenFeedDown: 'bypass',
    });
    assert.deepEqual(await cache.get('a'), { enabled: true });
    assert.deepEqual(await cache.get('a'), { enabled: true });
    assert.equal(store.reads, 1, 'kept');
    enabled = false;
    cache.forget('a');
    assert.deepEqual(await cache.get('a'), { enabled: false }, 'read again once a change named it');
    assert.equal(store.reads, 2);
    clock.advance(TTL_SECONDS - 1);
    await cache.get('a');
    assert.equal(store.reads, 2, 'within its lifetime');
    clock.advance(1);
    await cache.get('a');
    assert.equal(store.reads, 3, 'never longer than its lifetime, changes or not');
  });

  it('remembers that a row does not exist, until a change names it', async () => {
    const feed = { live: true };
    let exists = false;
    const store = countingLoader((id) => (exists ? { id } : undefined));
    const cache = new LoadingCache(store.load, {
      clock: new FakeClock(),
      feed,
      ttlSeconds: TTL_SECONDS,
      maxEntries: 100,
      whenFeedDown: 'bypass',
    });
    assert.equal(await cache.get('new'), undefined);
    assert.equal(await cache.get('new'), undefined);
    assert.equal(store.reads, 1);
    exists = true;
    cache.forget('new');
    assert.deepEqual(await cache.get('new'), { id: 'new' });
  });

  it('keepMisses: false never keeps "no such row", even when a change overtakes its read', async () => {
    let exists = false;
    const store = countingLoader((id) => (exists ? { id } : undefined));
    const cache = new LoadingCache(store.load, {
      clock: new FakeClock(),
      ttlSeconds: TTL_SECONDS,
      maxEntries: 100,
      keepMisses: false,
    });
    assert.equal(await cache.get('new'), undefined);
    exists = true;
    assert.deepEqual(await cache.get('new'), { id: 'new' }, 'read again: the miss was not kept');
    assert.equal(store.reads, 2);
    exists = false;
    cache.forget('new');
    store.hold();
    const racing = cache.get('new');
    cache.forget('new');
    store.release();
    assert.equal(
      await racing,
      undefined,
      'a miss whose entry was dropped meanwhile still answers (lru-cache alone rejects it)',
    );
  });

  it('bypass: while the feed is not live, reads every time; once live again, keeps entries', async () => {
    const feed = { live: false };
    const store = countingLoader(() => ({ ok: true }));
    const cache = new LoadingCache(store.load, {
      clock: new FakeClock(),
      feed,
      ttlSeconds: TTL_SECONDS,
      maxEntries: 100,
      whenFeedDown: 'bypass',
    });
    await cache.get('a');
    await cache.get('a');
    assert.equal(store.reads, 2, 'no feed, no cache: as before the feed existed');
    feed.live = true;
    cache.forgetAll();
    await cache.get('a');
    await cache.get('a');
    assert.equal(store.reads, 3, 'live: kept');
    feed.live = false;
    await cache.get('a');
    await cache.get('a');
    assert.equal(store.reads, 5, 'the feed went down: read every time again');
  });

  it('bypass: an entry read while live is not used once the feed is down, even before forgetAll', async () => {
    const feed = { live: true };
    const store = countingLoader(() => ({ ok: true }));
    const cache = new LoadingCache(store.load, {
      clock: new FakeClock(),
      feed,
      ttlSeconds: TTL_SECONDS,
      maxEntries: 100,
      whenFeedDown: 'bypass',
    });
    await cache.get('a');
    feed.live = false;
    await cache.get('a');
    assert.equal(store.reads, 2);
  });

  it('cache: while the feed is not live, keeps an entry for its lifetime (the bounded staleness of before)', async () => {
    const clock = new FakeClock();
    const store = countingLoader(() => ({ ok: true }));
    const cache = new LoadingCache(store.load, {
      clock,
      ttlSeconds: TTL_SECONDS,
      maxEntries: 100,
      whenFeedDown: 'cache',
    });
    await cache.get('a');
    clock.advance(TTL_SECONDS - 1);
    await cache.get('a');
    assert.equal(store.reads, 1);
    clock.advance(1);
    await cache.get('a');
    assert.equal(store.reads, 2);
  });

  it('a lifetime of 0 never keeps anything, live or not, and concurrent callers still share one read', async () => {
    const store = countingLoader(() => ({ ok: true }));
    const cache = new LoadingCache(store.load, {
      clock: new FakeClock(),
      feed: { live: true },
      ttlSeconds: 0,
      maxEntries: 100,
      whenFeedDown: 'cache',
    });
    await cache.get('a');
    await cache.get('a');
    assert.equal(store.reads, 2);
    cache.set('a', { ok: true });
    await cache.get('a');
    assert.equal(store.reads, 3, 'nor what is set');
    await Promise.all([cache.get('b'), cache.get('b'), cache.get('b')]);
    assert.equal(store.reads, 4);
  });

  it('without a lifetime, keeps an entry until it is dropped', async () => {
    const clock = new FakeClock();
    const store = countingLoader(() => ({ ok: true }));
    const cache = new LoadingCache(store.load, { clock, maxEntries: 100 });
    await cache.get('a');
    clock.advance(365 * 24 * 3600);
    await cache.get('a');
    assert.equal(store.reads, 1);
    cache.forget('a');
    await cache.get('a');
    assert.equal(store.reads, 2);
  });

  it('a read under way when a change arrives answers its callers but is not kept; later callers do not join it', async () => {
    const feed = { live: true };
    let version = 1;
    const store = countingLoader(() => ({ version }));
    const cache = new LoadingCache(store.load, {
      clock: new FakeClock(),
      feed,
      ttlSeconds: TTL_SECONDS,
      maxEntries: 100,
      whenFeedDown: 'bypass',
    });
    store.hold();
    const early = cache.get('a');
    const joined = cache.get('a');
    version = 2;
    cache.forget('a');
    const late = cache.get('a');
    store.release();
    assert.deepEqual(await early, { version: 1 });
    assert.deepEqual(await joined, { version: 1 }, 'a caller before the change shares the read');
    assert.deepEqual(await late, { version: 2 }, 'a caller after the change reads again');
    assert.equal(store.reads, 2);
    assert.deepEqual(await cache.get('a'), { version: 2 }, 'the newer read is the one kept');
    assert.equal(store.reads, 2);
  });

  it('a read under way when the feed becomes live again is not kept', async () => {
    const feed = { live: false };
    const store = countingLoader(() => ({ ok: true }));
    const cache = new LoadingCache(store.load, {
      clock: new FakeClock(),
      feed,
      ttlSeconds: TTL_SECONDS,
      maxEntries: 100,
      whenFeedDown: 'cache',
    });
    store.hold();
    const pending = cache.get('a');
    feed.live = true;
    cache.forgetAll();
    store.release();
    await pending;
    await cache.get('a');
    assert.equal(store.reads, 2);
  });

  it('a failed reload drops nothing: its callers get the error, what was held serves out its lifetime', async () => {
    const clock = new FakeClock();
    let failing = false;
    let reads = 0;
    const cache = new LoadingCache(
      async () => {
        reads += 1;
        if (failing) throw new Error('database down');
        return { reads };
      },
      { clock, ttlSeconds: TTL_SECONDS, maxEntries: 1 },
    );
    assert.deepEqual(await cache.get('k'), { reads: 1 });
    failing = true;
    await assert.rejects(cache.get('k', { reload: true }), /database down/);
    assert.deepEqual(await cache.get('k'), { reads: 1 }, 'still held');
    clock.advance(TTL_SECONDS);
    await assert.rejects(cache.get('k'), /database down/, 'not past its lifetime');
  });

  it('keeps misses cheap on a large, mostly empty cache (lru-cache alone refills its whole storage on each)', async () => {
    // lru-cache alone clears its whole storage (`fill()` over arrays as long as `max`) whenever its
    // last entry goes: on every miss of a mostly empty cache. Counted, not timed.
    const cache = new LoadingCache(async () => undefined, {
      clock: new FakeClock(),
      ttlSeconds: 5,
      maxEntries: 1_000_000,
      keepMisses: false,
    });
    const fill = Array.prototype.fill;
    let storageFills = 0;
    Array.prototype.fill = function (this: unknown[], ...args: Parameters<typeof fill>) {
      if (this.length >= 1_000_000) storageFills += 1;
      return fill.apply(this, args);
    } as typeof fill;
    try {
      for (let i = 0; i < 200; i += 1) await cache.get(`k${i}`);
      assert.equal(storageFills, 0, 'no storage cleared on a miss');
      cache.forgetAll();
      const forgetting = storageFills;
      for (let i = 0; i < 200; i += 1) await cache.get(`k${i}`);
      assert.equal(storageFills, forgetting, 'nor on a miss after forgetAll');
    } finally {
      Array.prototype.fill = fill;
    }
  });
});

describe('ClientDirectory with a change feed', () => {
  const record = (enabled: boolean) =>
    ({ id: 'cg_a', platform: 'p', institution: 'default', enabled, allowedIps: [] }) as unknown as ClientRecord;

  it('drops a client when its change arrives, not only when its lifetime lapses', async () => {
    let enabled = true;
    const store = countingLoader(() => record(enabled));
    const directory = new ClientDirectory({ findById: store.load }, new FakeClock(), TTL_SECONDS, 100, { live: true });
    assert.equal((await directory.get('cg_a'))?.enabled, true);
    enabled = false;
    assert.equal((await directory.get('cg_a'))?.enabled, true, 'cached');
    directory.forget('cg_a');
    assert.equal((await directory.get('cg_a'))?.enabled, false, 'the change arrived');
  });

  it('without a live feed, trusts a client for its lifetime only', async () => {
    const clock = new FakeClock();
    let enabled = true;
    const store = countingLoader(() => record(enabled));
    const directory = new ClientDirectory({ findById: store.load }, clock, TTL_SECONDS, 100, { live: false });
    await directory.get('cg_a');
    enabled = false;
    clock.advance(TTL_SECONDS - 1);
    assert.equal((await directory.get('cg_a'))?.enabled, true, 'within the lifetime');
    clock.advance(1);
    assert.equal((await directory.get('cg_a'))?.enabled, false, 'after it');
  });

  it('one cache for both readers: while live, the token endpoint and the bearer check share one read', async () => {
    const store = countingLoader(() => record(true));
    const directory = new ClientDirectory({ findById: store.load }, new FakeClock(), TTL_SECONDS, 100, { live: true });
    assert.equal((await directory.findById('cg_a'))?.id, 'cg_a');
    assert.equal((await directory.get('cg_a'))?.clientId, 'cg_a');
    assert.equal((await directory.findById('cg_a'))?.id, 'cg_a');
    assert.equal(store.reads, 1);
  });

  it('while the feed is not live, the token endpoint reads every time and leaves the bearer check’s entry as it was', async () => {
    let enabled = true;
    const feed = { live: true };
    const store = countingLoader(() => record(enabled));
    const directory = new ClientDirectory({ findById: store.load }, new FakeClock(), TTL_SECONDS, 100, feed);
    await directory.get('cg_a');
    feed.live = false;
    enabled = false;
    assert.equal((await directory.findById('cg_a'))?.enabled, false, 'the token endpoint reads the database');
    assert.equal((await directory.findById('cg_a'))?.enabled, false);
    assert.equal(store.reads, 3);
    assert.equal((await directory.get('cg_a'))?.enabled, true, 'the bearer check: its entry, within its lifetime');
    assert.equal(store.reads, 3);
  });
});

describe('InstitutionRegistry', () => {
  const institution = (enabled: boolean, coreUrl: string | null = null, name = 'Default') =>
    ({ id: 'default', name, enabled, coreUrl }) as unknown as InstitutionRecord;

  /** A factory whose cores record their own closing. */
  function recordingFactory() {
    const built: Array<{ url: string | null; closed: boolean }> = [];
    return {
      built,
      create(record: InstitutionRecord): CoreConnector {
        const core = { url: record.coreUrl ?? null, closed: false };
        built.push(core);
        return {
          startSession: async () => assert.fail(),
          listAccounts: async () => assert.fail(),
          close: async () => void (core.closed = true),
        };
      },
    };
  }

  it('a reload under way when a change arrives does not count as fresh: the next call reads again', async () => {
    let enabled = true;
    const store = countingLoader(() => [institution(enabled)]);
    const registry = new InstitutionRegistry(
      { list: () => store.load('all') } as unknown as InstitutionStore,
      {
        create: () => ({
          startSession: async () => assert.fail(),
          listAccounts: async () => assert.fail(),
          close: async () => {},
        }),
      },
      new FakeClock(),
      { cacheSeconds: 60 },
    );
    assert.equal(await registry.isEnabled('default'), true);
    registry.forgetAll();
    store.hold();
    const racing = registry.isEnabled('default');
    enabled = false;
    registry.forgetAll();
    const after = registry.isEnabled('default');
    store.release();
    // The older read answers its caller with whatever it finds last: either state is right for it.
    assert.equal(typeof (await racing), 'boolean');
    assert.equal(await after, false, 'a call after the change does not join the older read');
    assert.equal(await registry.isEnabled('default'), false, 'and the older read did not overwrite it');
    await registry.close();
  });

  it('keeps an institution’s core while its core settings stay the same, and closes it once they change or it is gone', async () => {
    let records = [institution(true, 'http://core-a')];
    const factory = recordingFactory();
    const registry = new InstitutionRegistry(
      { list: async () => records } as unknown as InstitutionStore,
      factory,
      new FakeClock(),
      { cacheSeconds: 60 },
    );
    const first = await registry.coreFor('default');
    records = [institution(false, 'http://core-a', 'Renamed')];
    registry.forgetAll();
    assert.equal(await registry.isEnabled('default'), false);
    records = [institution(true, 'http://core-a', 'Renamed')];
    registry.forgetAll();
    assert.equal(await registry.coreFor('default'), first, 'renamed, disabled and enabled again: the same core');
    assert.equal(factory.built.length, 1);
    records = [institution(true, 'http://core-b')];
    registry.forgetAll();
    assert.notEqual(await registry.coreFor('default'), first, 'a new URL: a new core');
    assert.deepEqual(
      factory.built,
      [
        { url: 'http://core-a', closed: true },
        { url: 'http://core-b', closed: false },
      ],
      'the old one closed',
    );
    records = [];
    registry.forgetAll();
    assert.equal(await registry.find('default'), undefined);
    assert.equal(factory.built[1]?.closed, true, 'gone: closed');
    await registry.close();
  });

  it('a failed read keeps the institutions read before, and tries again after COREGATE_INSTITUTION_CACHE_SECONDS', async () => {
    const clock = new FakeClock();
    let failing = false;
    let reads = 0;
    const errors: unknown[] = [];
    const store = {
      list: async () => {
        reads += 1;
        if (failing) throw new Error('database down');
        return [institution(true)];
      },
    } as unknown as InstitutionStore;
    const registry = new InstitutionRegistry(store, recordingFactory(), clock, {
      cacheSeconds: 10,
      onError: (error) => errors.push(error),
    });
    assert.equal(await registry.isEnabled('default'), true);
    failing = true;
    registry.forgetAll();
    assert.equal(await registry.isEnabled('default'), true, 'what was read before');
    assert.equal(await registry.isEnabled('default'), true);
    assert.equal(reads, 2, 'not read again on every call');
    assert.equal(errors.length, 1);
    clock.advance(10);
    await registry.isEnabled('default');
    assert.equal(reads, 3, 'read again after the cache time');
    await assert.rejects(registry.refresh(), /database down/, 'a refresh asked for says it failed');
    await registry.close();
  });

  it('never read: a failed read fails the call', async () => {
    const store = { list: async () => assert.fail('database down') } as unknown as InstitutionStore;
    const registry = new InstitutionRegistry(store, recordingFactory(), new FakeClock(), { cacheSeconds: 10 });
    await assert.rejects(registry.coreFor('default'), /database down/);
  });
});
