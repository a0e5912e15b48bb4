/**
 * A short-lived in-process cache in front of the association store, for the
 * accounts hot path: a platform reading a customer's accounts again within a few
 * seconds costs no database round trip and no decryption.
 *
 * Every write made through this process updates or drops the entry at once. An
 * association removed by another process (deregistered, or revoked with the CLI) is
 * dropped as soon as the change feed announces it ({@link CachingAssociationStore.forget}),
 * and while the feed is down within `ttlSeconds`. Other changes elsewhere are seen
 * within `ttlSeconds`; that is safe because a cached delegate reference ID either still
 * works at the core (starting a session never ends the customer's other sessions,
 * docs/core-protocol.md) or is rejected, which makes coregate renew through the
 * database as usual. An absent customer is never kept: a registration elsewhere (not
 * announced) is visible at once.
 */
import type { Association, AssociationKey } from '../../domain/association.js';
import type { LifecycleEvent } from '../../domain/lifecycle-event.js';
import type { AuditEvent } from '../../ports/audit-log.js';
import type {
  AssociationStore,
  AssociationSummary,
  ClaimResult,
  EventsToRecord,
  NewSession,
  RegisterResult,
} from '../../ports/association-store.js';
import type { Clock } from '../../ports/clock.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import { LoadingCache } from '../../ports/loading-cache.js';

/** What a miss loads with: the key, and the deadline of the request that missed (callers joining its load wait with it). */
interface Load {
  readonly key: AssociationKey;
  readonly deadline: DatabaseDeadline | undefined;
}

function cacheKey(key: AssociationKey): string {
  return `${key.institution}\u0000${key.platform}\u0000${key.customerId}`;
}

export class CachingAssociationStore implements AssociationStore {
  /** Loaded with the key and the deadline of the request that missed. */
  private readonly entries: LoadingCache<Association, Load>;

  constructor(
    private readonly inner: AssociationStore,
    clock: Clock,
    ttlSeconds: number,
    maxEntries = 100_000,
  ) {
    this.entries = new LoadingCache((_id, load) => this.inner.find(load.key, load.deadline), {
      clock,
      ttlSeconds,
      maxEntries,
      keepMisses: false,
    });
  }

  find(key: AssociationKey, deadline?: DatabaseDeadline): Promise<Association | undefined> {
    return this.entries.get(cacheKey(key), { context: { key, deadline } });
  }

  async register(
    key: AssociationKey,
    session: NewSession,
    now: Date,
    events?: readonly LifecycleEvent[],
    audit?: AuditEvent,
    deadline?: DatabaseDeadline,
  ): Promise<RegisterResult> {
    const result = await this.inner.register(key, session, now, events, audit, deadline);
    this.forget(key);
    return result;
  }

  async claimRenewal(
    key: AssociationKey,
    version: number,
    owner: string,
    now: Date,
    leaseUntil: Date,
    deadline?: DatabaseDeadline,
  ): Promise<ClaimResult> {
    const result = await this.inner.claimRenewal(key, version, owner, now, leaseUntil, deadline);
    if (result.outcome !== 'claimed') this.forget(key);
    return result;
  }

  async completeRenewal(
    key: AssociationKey,
    version: number,
    owner: string,
    session: NewSession,
    now: Date,
    deadline?: DatabaseDeadline,
  ): Promise<Association | undefined> {
    const renewed = await this.inner.completeRenewal(key, version, owner, session, now, deadline);
    if (renewed) this.entries.set(cacheKey(key), renewed);
    else this.forget(key);
    return renewed;
  }

  async releaseRenewal(key: AssociationKey, owner: string, deadline?: DatabaseDeadline): Promise<void> {
    await this.inner.releaseRenewal(key, owner, deadline);
  }

  async markNeedsReregistration(
    key: AssociationKey,
    version: number,
    now: Date,
    events?: readonly LifecycleEvent[],
    deadline?: DatabaseDeadline,
  ): Promise<void> {
    this.forget(key);
    await this.inner.markNeedsReregistration(key, version, now, events, deadline);
    this.forget(key);
  }

  listByPlatform(platform: string, limit: number, institution?: string): Promise<AssociationSummary[]> {
    return this.inner.listByPlatform(platform, limit, institution);
  }

  async delete(key: AssociationKey, record?: EventsToRecord, deadline?: DatabaseDeadline): Promise<boolean> {
    this.forget(key);
    const deleted = await this.inner.delete(key, record, deadline);
    this.forget(key);
    return deleted;
  }

  /** The change feed is live again after a gap: removals may have been missed. */
  forgetAll(): void {
    this.entries.forgetAll();
  }

  /** Drops the entry: a write here, or another process removed it (the change feed said so). */
  forget(key: AssociationKey): void {
    this.entries.forget(cacheKey(key));
  }
}
