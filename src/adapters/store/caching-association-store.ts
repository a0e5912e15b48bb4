/**
 * A short-lived in-process cache in front of the association store, for the
 * accounts hot path: a platform reading a customer's accounts again within a few
 * seconds costs no database round trip and no decryption.
 *
 * Every write made through this process updates or drops the entry at once. What
 * another process changes is seen within `ttlSeconds`; that is safe because a
 * cached delegate reference ID either still works at the core (starting a session
 * never ends the customer's other sessions, docs/core-protocol.md) or is rejected,
 * which makes coregate renew through the database as usual.
 */
import type { Association, AssociationKey } from '../../domain/session.js';
import type { AssociationStore, AssociationSummary, ClaimResult, NewSession, RegisterResult } from '../../ports/association-store.js';
import type { Clock } from '../../ports/clock.js';

interface Entry {
  readonly association: Association;
  readonly cachedAt: number;
}

function cacheKey(key: AssociationKey): string {
  return `${key.platform}\u0000${key.customerId}`;
}

export class CachingAssociationStore implements AssociationStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly inner: AssociationStore,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
    private readonly maxEntries = 100_000,
  ) {}

  async find(key: AssociationKey): Promise<Association | undefined> {
    const id = cacheKey(key);
    const entry = this.entries.get(id);
    const now = this.clock.now().getTime();
    if (entry && now - entry.cachedAt < this.ttlSeconds * 1000) return entry.association;
    const association = await this.inner.find(key);
    // Absent customers are not cached: a registration elsewhere is visible at once.
    if (association) this.remember(id, association, now);
    else this.entries.delete(id);
    return association;
  }

  async register(key: AssociationKey, session: NewSession, now: Date): Promise<RegisterResult> {
    const result = await this.inner.register(key, session, now);
    this.forget(key);
    return result;
  }

  async claimRenewal(key: AssociationKey, version: number, owner: string, now: Date, leaseUntil: Date): Promise<ClaimResult> {
    const result = await this.inner.claimRenewal(key, version, owner, now, leaseUntil);
    if (result.outcome !== 'claimed') this.forget(key);
    return result;
  }

  async completeRenewal(key: AssociationKey, version: number, owner: string, session: NewSession, now: Date): Promise<Association | undefined> {
    const renewed = await this.inner.completeRenewal(key, version, owner, session, now);
    if (renewed) this.remember(cacheKey(key), renewed, this.clock.now().getTime());
    else this.forget(key);
    return renewed;
  }

  async releaseRenewal(key: AssociationKey, owner: string): Promise<void> {
    await this.inner.releaseRenewal(key, owner);
  }

  async markNeedsReregistration(key: AssociationKey, version: number, now: Date): Promise<void> {
    this.forget(key);
    await this.inner.markNeedsReregistration(key, version, now);
    this.forget(key);
  }

  listByPlatform(platform: string, limit: number): Promise<AssociationSummary[]> {
    return this.inner.listByPlatform(platform, limit);
  }

  async delete(key: AssociationKey): Promise<boolean> {
    this.forget(key);
    const deleted = await this.inner.delete(key);
    this.forget(key);
    return deleted;
  }

  private remember(id: string, association: Association, now: number): void {
    if (this.ttlSeconds <= 0) return;
    this.entries.delete(id);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { association, cachedAt: now });
  }

  private forget(key: AssociationKey): void {
    this.entries.delete(cacheKey(key));
  }
}
