/**
 * What the bearer check needs to know about a token's client, cached for a short
 * time so that the gateway does not query the database on every request. The
 * cache lifetime bounds how long a disabled client's tokens keep working.
 */
import type { LRUCache } from 'lru-cache';
import { NeverEmptyLRUCache } from '../ports/never-empty-lru-cache.js';
import { IpAllowList } from '../domain/ip-allow-list.js';
import type { ClientStore } from '../ports/client-store.js';
import { expiryOnClock, type Clock } from '../ports/clock.js';

export interface ClientAccess {
  readonly clientId: string;
  readonly platform: string;
  readonly institution: string;
  readonly enabled: boolean;
  readonly allowedIps: IpAllowList;
}

/** A box, so that "no such client" is cached too (lru-cache does not store `undefined`). */
interface Entry {
  readonly access: ClientAccess | undefined;
}

export class ClientDirectory {
  /** Concurrent requests for a client share one pending load (`fetchMethod`). */
  private readonly entries: LRUCache<string, Entry>;
  private readonly refreshEveryTime: boolean;

  constructor(
    private readonly clients: ClientStore,
    clock: Clock,
    cacheSeconds: number,
    /** Upper bound on cached clients; the least recently used goes first. */
    maxEntries = 10_000,
  ) {
    this.refreshEveryTime = cacheSeconds <= 0;
    this.entries = new NeverEmptyLRUCache<string, Entry>({
      max: maxEntries,
      ...expiryOnClock(clock, cacheSeconds),
      // A load under way when its entry is dropped still answers its callers.
      ignoreFetchAbort: true,
      fetchMethod: async (clientId) => ({ access: await this.load(clientId) }),
    });
  }

  /** The client's access rules; `undefined` for a client that no longer exists. */
  async get(clientId: string): Promise<ClientAccess | undefined> {
    return (await this.entries.fetch(clientId, { forceRefresh: this.refreshEveryTime }))?.access;
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
