/**
 * A per-id cache of what the database says about a client (or anything a change
 * names), for at most `ttlSeconds` on the injected clock, dropped at once when a
 * change names the id (`forget`) or the change feed becomes live again (`forgetAll`).
 *
 * While the feed is not live, `whenFeedDown` says what to do: `'cache'` keeps
 * entries for `ttlSeconds` (the bearer check's bounded staleness, as before the
 * feed existed; an entry read while it was live is no older than that either),
 * `'bypass'` reads the database on every call (the token endpoint) and uses nothing held.
 *
 * A read that started before a change was announced could return the old row: its
 * result answers its callers but is not kept (every `forget` moves a generation on).
 */
import type { LRUCache } from 'lru-cache';
import { NeverEmptyLRUCache } from '../ports/never-empty-lru-cache.js';
import type { FeedLiveness } from '../ports/change-feed.js';
import { expiryOnClock, type Clock } from '../ports/clock.js';

export interface ChangeDrivenCacheOptions {
  /** How long an entry is used at most; 0 = never cached. */
  readonly ttlSeconds: number;
  readonly whenFeedDown: 'cache' | 'bypass';
  /** Upper bound on entries; the least recently used goes first. */
  readonly maxEntries?: number;
}

/** A box, so that "no such row" is cached too (lru-cache does not store `undefined`). */
interface Entry<V> {
  readonly value: V | undefined;
}

interface Pending<V> {
  readonly promise: Promise<V | undefined>;
  readonly generation: number;
}

export class ChangeDrivenCache<V> {
  private readonly entries: LRUCache<string, Entry<V>> | undefined;
  private readonly pending = new Map<string, Pending<V>>();
  /** Moved on by every `forget`/`forgetAll`: a read begun before it is not kept. */
  private generation = 0;

  constructor(
    private readonly load: (id: string) => Promise<V | undefined>,
    clock: Clock,
    /** Without a feed the cache behaves as with a feed that is never live. */
    private readonly feed: FeedLiveness | undefined,
    private readonly options: ChangeDrivenCacheOptions,
  ) {
    this.entries =
      options.ttlSeconds > 0 ? new NeverEmptyLRUCache<string, Entry<V>>({ max: options.maxEntries ?? 10_000, ...expiryOnClock(clock, options.ttlSeconds) }) : undefined;
  }

  async get(id: string): Promise<V | undefined> {
    const caching = this.caching();
    const hit = caching ? this.entries?.get(id) : undefined;
    return hit ? hit.value : this.read(id, caching);
  }

  /** A change named `id`: the next call reads it again. */
  forget(id: string): void {
    this.generation += 1;
    this.entries?.delete(id);
  }

  /** The feed is live again after changes may have been missed: nothing held can be trusted. */
  forgetAll(): void {
    this.generation += 1;
    this.entries?.clear();
  }

  private caching(): boolean {
    return this.entries !== undefined && (this.options.whenFeedDown === 'cache' || this.feed?.live === true);
  }

  /** Concurrent callers share one read, unless a change came between its start and theirs. */
  private read(id: string, keep: boolean): Promise<V | undefined> {
    const shared = this.pending.get(id);
    if (shared && shared.generation === this.generation) return shared.promise;
    const generation = this.generation;
    const promise = this.load(id)
      .then((value) => {
        if (keep && generation === this.generation) this.entries?.set(id, { value });
        return value;
      })
      .finally(() => {
        if (this.pending.get(id)?.promise === promise) this.pending.delete(id);
      });
    this.pending.set(id, { promise, generation });
    return promise;
  }
}
