/**
 * This process's one cache of client records, read by the token endpoint's client
 * authentication ({@link ClientDirectory.findById}: the record, with its secret's
 * digest) and by the bearer check ({@link ClientDirectory.get}: the access rules derived
 * from it), so that neither queries the database on every request. A change to a
 * client, announced by the change feed or made by this process, drops its entry at once.
 *
 * While the feed is not live the two differ, as before the feed existed: the bearer
 * check trusts an entry for the cache lifetime, which bounds how long a disabled
 * client's tokens keep working; the token endpoint reads the database on every request
 * (a secret rotated in another process stops working at once) and keeps nothing.
 */
import type { ClientRecord } from '../domain/client.js';
import { IpAllowList } from '../domain/ip-allow-list.js';
import type { FeedLiveness } from '../ports/change-feed.js';
import type { ClientStore } from '../ports/client-store.js';
import type { Clock } from '../ports/clock.js';
import type { DatabaseDeadline } from '../ports/database-deadline.js';
import { LoadingCache } from '../ports/loading-cache.js';

export interface ClientAccess {
  readonly clientId: string;
  readonly platform: string;
  readonly institution: string;
  readonly enabled: boolean;
  readonly allowedIps: IpAllowList;
  /** Only DPoP- or certificate-bound tokens are accepted: an unbound one issued before the rule was set is refused. */
  readonly requireBoundTokens: boolean;
}

/** A record and its access rules, derived once per read (the allow-list parsed once). */
/**
 * Each client record's parsed IP allow-list, parsed once per record: the bearer check reads it
 * from the directory's entry, the token endpoint through this function with the record client
 * authentication admitted (the same cached object; a changed client is a new record).
 */
const allowLists = new WeakMap<ClientRecord, IpAllowList>();

export function allowListOf(record: ClientRecord): IpAllowList {
  let list = allowLists.get(record);
  if (!list) allowLists.set(record, (list = new IpAllowList(record.allowedIps)));
  return list;
}

interface CachedClient {
  readonly record: ClientRecord;
  readonly access: ClientAccess;
}

export class ClientDirectory implements Pick<ClientStore, 'findById'> {
  /** Loaded with the deadline of the request that missed (callers joining its read wait with it). */
  private readonly entries: LoadingCache<CachedClient, DatabaseDeadline | undefined>;

  constructor(
    private readonly clients: Pick<ClientStore, 'findById'>,
    clock: Clock,
    cacheSeconds: number,
    /** Upper bound on cached clients; the least recently used goes first. */
    maxEntries = 10_000,
    /** The change feed whose changes {@link forget} entries; without it only the lifetime bounds them. */
    feed?: FeedLiveness,
  ) {
    this.entries = new LoadingCache((clientId, deadline) => this.load(clientId, deadline), {
      clock,
      ttlSeconds: cacheSeconds,
      maxEntries,
      feed,
      whenFeedDown: 'cache',
    });
  }

  /**
   * The client's record, for client authentication; `undefined` for an unknown client.
   * `deadline`, here and in {@link get}: the calling request's time for the database (`ports/database-deadline.ts`).
   */
  async findById(clientId: string, deadline?: DatabaseDeadline): Promise<ClientRecord | undefined> {
    return (await this.entries.get(clientId, { whenFeedDown: 'bypass', context: deadline }))?.record;
  }

  /** The client's access rules, for the bearer check; `undefined` for a client that no longer exists. */
  async get(clientId: string, deadline?: DatabaseDeadline): Promise<ClientAccess | undefined> {
    return (await this.entries.get(clientId, deadline && { context: deadline }))?.access;
  }

  /** The client changed: read it again on its next request. */
  forget(clientId: string): void {
    this.entries.forget(clientId);
  }

  /** The change feed is live again (changes may have been missed): read every client again. */
  forgetAll(): void {
    this.entries.forgetAll();
  }

  private async load(clientId: string, deadline: DatabaseDeadline | undefined): Promise<CachedClient | undefined> {
    const record = await this.clients.findById(clientId, deadline);
    return (
      record && {
        record,
        access: {
          clientId: record.id,
          platform: record.platform,
          institution: record.institution,
          enabled: record.enabled,
          allowedIps: allowListOf(record),
          requireBoundTokens: record.requireBoundTokens,
        },
      }
    );
  }
}
