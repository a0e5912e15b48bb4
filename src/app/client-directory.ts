/**
 * What the bearer check needs to know about a token's client, cached so that the
 * gateway does not query the database on every request. A change to the client,
 * announced by the change feed, drops its entry at once; while the feed is not
 * live the cache lifetime alone bounds how long a disabled client's tokens keep
 * working (as before the feed existed).
 */
import { IpAllowList } from '../domain/ip-allow-list.js';
import type { FeedLiveness } from '../ports/change-feed.js';
import type { ClientStore } from '../ports/client-store.js';
import type { Clock } from '../ports/clock.js';
import { ChangeDrivenCache } from './change-driven-cache.js';

export interface ClientAccess {
  readonly clientId: string;
  readonly platform: string;
  readonly institution: string;
  readonly enabled: boolean;
  readonly allowedIps: IpAllowList;
}

export class ClientDirectory {
  private readonly entries: ChangeDrivenCache<ClientAccess>;

  constructor(
    private readonly clients: Pick<ClientStore, 'findById'>,
    clock: Clock,
    cacheSeconds: number,
    /** Upper bound on cached clients; the least recently used goes first. */
    maxEntries = 10_000,
    /** The change feed whose changes {@link forget} entries; without it only the lifetime bounds them. */
    feed?: FeedLiveness,
  ) {
    this.entries = new ChangeDrivenCache((clientId) => this.load(clientId), clock, feed, { ttlSeconds: cacheSeconds, whenFeedDown: 'cache', maxEntries });
  }

  /** The client's access rules; `undefined` for a client that no longer exists. */
  async get(clientId: string): Promise<ClientAccess | undefined> {
    return this.entries.get(clientId);
  }

  /** The client changed: read it again on its next request. */
  forget(clientId: string): void {
    this.entries.forget(clientId);
  }

  /** The change feed is live again (changes may have been missed): read every client again. */
  forgetAll(): void {
    this.entries.forgetAll();
  }

  private async load(clientId: string): Promise<ClientAccess | undefined> {
    const record = await this.clients.findById(clientId);
    return (
      record && {
        clientId: record.id,
        platform: record.platform,
        institution: record.institution,
        enabled: record.enabled,
        allowedIps: new IpAllowList(record.allowedIps),
      }
    );
  }
}
