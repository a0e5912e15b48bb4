/**
 * The one in-memory cache of coregate, on lru-cache: client records, the institutions,
 * the signing keys, verified access tokens and customer associations are all kept here.
 *
 * - A miss loads; concurrent callers of one key share one pending load (`fetchMethod`).
 * - An entry lives at most `ttlSeconds` on the injected clock; the least recently used
 *   goes first once `maxEntries` are held.
 * - `forget(key)` drops one entry, `forgetAll()` every one: a change announced by the
 *   change feed, a write made by this process, the feed live again after a gap. A load
 *   under way when its entry is dropped still answers its callers but is not kept, and
 *   later callers do not join it: it may have read the row before the change.
 * - While the change feed is not live, `whenFeedDown` decides: `'cache'` goes on using
 *   entries for their lifetime (the staleness bound of before the feed existed);
 *   `'bypass'` reads on every call, keeps nothing and uses nothing held.
 * - A failed load drops nothing: its callers get the error, and what was held keeps the
 *   rest of its lifetime.
 */
import { LRUCache } from 'lru-cache';
import type { FeedLiveness } from './change-feed.js';
import type { Clock } from './clock.js';

type FeedDownPolicy = 'cache' | 'bypass';

export interface LoadingCacheOptions {
  readonly clock: Clock;
  /** How long an entry is used at most; 0 = never kept (each call loads; concurrent ones share); absent = until dropped or evicted. */
  readonly ttlSeconds?: number;
  readonly maxEntries: number;
  /** The change feed whose announcements drop entries; without one the cache acts as with a feed never live. */
  readonly feed?: FeedLiveness | undefined;
  /** While the feed is not live; `'cache'` unless set. */
  readonly whenFeedDown?: FeedDownPolicy;
  /** Whether a load's "no such thing" (`undefined`) is kept like a value; true unless set. */
  readonly keepMisses?: boolean;
}

export interface GetOptions<C> {
  /** Passed to the load (what the key alone does not say). */
  readonly context?: C;
  /** Load now even if an entry is held (a load under way is joined). */
  readonly reload?: boolean;
  /** This call's policy while the feed is not live, instead of the cache's. */
  readonly whenFeedDown?: FeedDownPolicy;
}

/** Loads the value of `key`; `undefined` when there is none. */
export type Loader<V, C> = (key: string, context: C) => Promise<V | undefined>;

/** A box, so that "no such thing" can be kept too (lru-cache does not store `undefined`). */
interface Entry<V> {
  readonly value: V | undefined;
}

/**
 * Why: when its last entry goes, lru-cache clears its whole storage (`fill()` over arrays
 * as long as `max`), and a mostly empty cache goes from one entry (a pending load) to none
 * on every miss. A pinned entry that never expires, is never looked up and is put back
 * after a clear keeps misses cheap; only an eviction (a cache full to `max`) can drop it.
 */
const PLACEHOLDER = Symbol('never-empty placeholder');

export class LoadingCache<V, C = undefined> {
  private readonly entries: LRUCache<string | typeof PLACEHOLDER, Entry<V> | typeof PLACEHOLDER, unknown>;
  /** Whether a loaded value is kept at all (a lifetime of 0 keeps nothing). */
  private readonly keeps: boolean;

  constructor(
    private readonly load: Loader<V, C>,
    private readonly options: LoadingCacheOptions,
  ) {
    this.keeps = options.ttlSeconds === undefined || options.ttlSeconds > 0;
    const perf = { now: () => options.clock.now().getTime() };
    this.entries = new LRUCache({
      // One more than asked, for the placeholder.
      max: options.maxEntries + 1,
      // Expiry on the injected clock, read on every check (`ttlResolution: 0`); lru-cache keeps
      // an entry while `now - start <= ttl`, hence one millisecond less than the lifetime.
      ...(this.keeps && options.ttlSeconds !== undefined ? { ttl: Math.round(options.ttlSeconds * 1000) - 1 } : {}),
      ttlResolution: 0,
      perf,
      // A load whose entry was dropped meanwhile answers its callers; lru-cache does not keep it.
      ignoreFetchAbort: true,
      noDeleteOnFetchRejection: true,
      fetchMethod: async (key, _held, { context }) => ({ value: await this.load(key as string, context as C) }),
    });
    this.pin();
  }

  /** The value of `key`, loaded if it is not held (or may not be used now); `undefined` when there is none. */
  async get(key: string, options: GetOptions<C> = {}): Promise<V | undefined> {
    if ((options.whenFeedDown ?? this.options.whenFeedDown) === 'bypass' && this.options.feed?.live !== true) {
      return this.load(key, options.context as C);
    }
    const entry = (await this.entries.forceFetch(key, {
      context: options.context,
      forceRefresh: options.reload === true || !this.keeps,
    })) as Entry<V>;
    // Loaded for its callers only: dropped unless it is already something newer.
    if (
      (!this.keeps || (entry.value === undefined && this.options.keepMisses === false)) &&
      this.entries.peek(key) === entry
    )
      this.entries.delete(key);
    return entry.value;
  }

  /** Keeps `value` for `key` (a write made by this process), replacing what is held or being loaded. */
  set(key: string, value: V): void {
    if (this.keeps) this.entries.set(key, { value });
    else this.forget(key);
  }

  /** Drops the entry of `key`: the next call loads it again. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every entry. */
  forgetAll(): void {
    this.entries.clear();
    this.pin();
  }

  private pin(): void {
    this.entries.set(PLACEHOLDER, PLACEHOLDER, { ttl: 0 });
  }
}
