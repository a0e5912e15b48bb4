/**
 * What the bearer check needs to know about a token's client, cached for a short
 * time so that the gateway does not query the database on every request. The
 * cache lifetime bounds how long a disabled client's tokens keep working.
 */
import { IpAllowList } from '../domain/ip-allow-list.js';
import type { ClientStore } from '../ports/client-store.js';
import type { Clock } from '../ports/clock.js';

export interface ClientAccess {
  readonly clientId: string;
  readonly platform: string;
  readonly enabled: boolean;
  readonly allowedIps: IpAllowList;
}

interface CacheEntry {
  readonly access: ClientAccess | undefined;
  readonly loadedAt: number;
}

export class ClientDirectory {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly pending = new Map<string, Promise<ClientAccess | undefined>>();

  constructor(
    private readonly clients: ClientStore,
    private readonly clock: Clock,
    private readonly cacheSeconds: number,
    /** Upper bound on cached clients; the oldest entry goes first. */
    private readonly maxEntries = 10_000,
  ) {}

  /** The client's access rules; `undefined` for a client that no longer exists. */
  async get(clientId: string): Promise<ClientAccess | undefined> {
    const entry = this.entries.get(clientId);
    if (entry && this.clock.now().getTime() - entry.loadedAt < this.cacheSeconds * 1000) return entry.access;
    let loading = this.pending.get(clientId);
    if (!loading) {
      loading = this.load(clientId).finally(() => this.pending.delete(clientId));
      this.pending.set(clientId, loading);
    }
    return loading;
  }

  private async load(clientId: string): Promise<ClientAccess | undefined> {
    const record = await this.clients.findById(clientId);
    const access: ClientAccess | undefined = record && {
      clientId: record.id,
      platform: record.platform,
      enabled: record.enabled,
      allowedIps: new IpAllowList(record.allowedIps),
    };
    this.entries.delete(clientId);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(clientId, { access, loadedAt: this.clock.now().getTime() });
    return access;
  }
}
