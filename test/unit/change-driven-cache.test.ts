/**
 * The caches the change feed keeps current (issue 12), on a fake clock and a feed
 * switched by hand: an entry is dropped as soon as a change names it, a read that
 * raced a change is not kept, and while the feed is not live the token endpoint's
 * cache reads every time and the bearer check's is bounded by its lifetime.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChangeDrivenCache } from '../../src/app/change-driven-cache.js';
import { ClientDirectory } from '../../src/app/client-directory.js';
import { InstitutionRegistry } from '../../src/app/institution-registry.js';
import type { ClientRecord } from '../../src/domain/client.js';
import type { InstitutionRecord } from '../../src/domain/institution.js';
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

describe('ChangeDrivenCache', () => {
  it('while the feed is live, keeps an entry until a change names it, and at most its lifetime', async () => {
    const clock = new FakeClock();
    const feed = { live: true };
    let enabled = true;
    const store = countingLoader(() => ({ enabled }));
    const cache = new ChangeDrivenCache(store.load, clock, feed, { ttlSeconds: TTL_SECONDS, whenFeedDown: 'bypass' });
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
    const cache = new ChangeDrivenCache(store.load, new FakeClock(), feed, { ttlSeconds: TTL_SECONDS, whenFeedDown: 'bypass' });
    assert.equal(await cache.get('new'), undefined);
    assert.equal(await cache.get('new'), undefined);
    assert.equal(store.reads, 1);
    exists = true;
    cache.forget('new');
    assert.deepEqual(await cache.get('new'), { id: 'new' });
  });

  it('bypass: while the feed is not live, reads every time; once live again, keeps entries', async () => {
    const feed = { live: false };
    const store = countingLoader(() => ({ ok: true }));
    const cache = new ChangeDrivenCache(store.load, new FakeClock(), feed, { ttlSeconds: TTL_SECONDS, whenFeedDown: 'bypass' });
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
    const cache = new ChangeDrivenCache(store.load, new FakeClock(), feed, { ttlSeconds: TTL_SECONDS, whenFeedDown: 'bypass' });
    await cache.get('a');
    feed.live = false;
    await cache.get('a');
    assert.equal(store.reads, 2);
  });

  it('cache: while the feed is not live, keeps an entry for its lifetime (the bounded staleness of before)', async () => {
    const clock = new FakeClock();
    const store = countingLoader(() => ({ ok: true }));
    const cache = new ChangeDrivenCache(store.load, clock, undefined, { ttlSeconds: TTL_SECONDS, whenFeedDown: 'cache' });
    await cache.get('a');
    clock.advance(TTL_SECONDS - 1);
    await cache.get('a');
    assert.equal(store.reads, 1);
    clock.advance(1);
    await cache.get('a');
    assert.equal(store.reads, 2);
  });

  it('a lifetime of 0 never keeps anything, live or not', async () => {
    const store = countingLoader(() => ({ ok: true }));
    const cache = new ChangeDrivenCache(store.load, new FakeClock(), { live: true }, { ttlSeconds: 0, whenFeedDown: 'cache' });
    await cache.get('a');
    await cache.get('a');
    assert.equal(store.reads, 2);
  });

  it('a read under way when a change arrives answers its callers but is not kept; later callers do not join it', async () => {
    const feed = { live: true };
    let version = 1;
    const store = countingLoader(() => ({ version }));
    const cache = new ChangeDrivenCache(store.load, new FakeClock(), feed, { ttlSeconds: TTL_SECONDS, whenFeedDown: 'bypass' });
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
    const cache = new ChangeDrivenCache(store.load, new FakeClock(), feed, { ttlSeconds: TTL_SECONDS, whenFeedDown: 'cache' });
    store.hold();
    const pending = cache.get('a');
    feed.live = true;
    cache.forgetAll();
    store.release();
    await pending;
    await cache.get('a');
    assert.equal(store.reads, 2);
  });
});

describe('ClientDirectory with a change feed', () => {
  const record = (enabled: boolean) => ({ id: 'cg_a', platform: 'p', institution: 'default', enabled, allowedIps: [] }) as unknown as ClientRecord;

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
});

describe('InstitutionRegistry.invalidate', () => {
  const institution = (enabled: boolean) => ({ id: 'default', name: 'Default', enabled, coreUrl: null }) as unknown as InstitutionRecord;

  it('a reload under way when a change arrives does not count as fresh: the next call reads again', async () => {
    let enabled = true;
    const store = countingLoader(() => [institution(enabled)]);
    const registry = new InstitutionRegistry(
      { list: () => store.load('all') } as unknown as InstitutionStore,
      { create: () => ({ startSession: async () => assert.fail(), listAccounts: async () => assert.fail(), close: async () => {} }) } as never,
      new FakeClock(),
      { cacheSeconds: 60 },
    );
    assert.equal(await registry.isEnabled('default'), true);
    registry.invalidate();
    store.hold();
    const racing = registry.isEnabled('default');
    enabled = false;
    registry.invalidate();
    const after = registry.isEnabled('default');
    store.release();
    // The older read answers its caller with whatever it finds last: either state is right for it.
    assert.equal(typeof (await racing), 'boolean');
    assert.equal(await after, false, 'a call after the change does not join the older read');
    assert.equal(await registry.isEnabled('default'), false, 'and the older read did not overwrite it');
    await registry.close();
  });
});
