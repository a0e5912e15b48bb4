/**
 * Keeps an association's core session usable (docs/behaviour.md#renewal,
 * docs/behaviour.md#single-renewal): renews it when `now >= expiresAt - skew` or when the
 * core rejects it, starting at most one new core session per association at a time — inside
 * the process through a shared promise, across processes through a renewal lease taken with
 * compare-and-swap on the association's version.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { customerNotRegistered, reregistrationRequired } from '../domain/errors.js';
import { associationKeyOf, needsRenewal, type Association } from '../domain/association.js';
import type { AssociationStore } from '../ports/association-store.js';
import type { Clock } from '../ports/clock.js';
import {
  CoreProtocolError,
  CoreUnavailable,
  CustomerNotRecognised,
  type CoreCallContext,
  type InstitutionCores,
} from '../ports/core-connector.js';
import { fromCoreFailure } from './core-failures.js';
import { lifecycleEvent } from '../domain/lifecycle-event.js';
import { SingleFlight } from './single-flight.js';
import { atInstitution } from './core-call-context.js';

export interface KeeperOptions {
  readonly skewSeconds: number;
  /** The timeout of one core call (COREGATE_CORE_TIMEOUT_MS): the renewal lease outlives it. */
  readonly coreTimeoutMs: number;
  /** How often a process waiting on another process's renewal looks again. */
  readonly pollMs?: number;
}

export interface RenewalEvents {
  /** A new core session was stored (awaited: the audit log records it durably). */
  onRenewal?(association: Association, context: CoreCallContext): void | Promise<void>;
  /**
   * The stored delegate reference ID could not be opened, so its session is renewed (once per
   * renewal, however many callers join it). Never given the value: there is none to give.
   */
  onUnreadableDelegate?(association: Association, context: CoreCallContext): void;
  /** The core no longer knows the customer key: the association was marked for re-registration (awaited). */
  onReregistrationRequired?(association: Association, context: CoreCallContext): void | Promise<void>;
  /** A renewal found another process's lease and waits for it (once per renewal, however long it polls). */
  onWait?(): void;
  /** A caller joined a renewal already pending in this process instead of starting one. */
  onJoin?(): void;
}

/**
 * How long a renewal may hold its lease: longer than one core call can take, so a
 * live renewer never loses it, and short, so a crashed renewer blocks others only briefly.
 */
function renewalLeaseSeconds(coreTimeoutMs: number): number {
  return Math.ceil(coreTimeoutMs / 1000) + 5;
}

export class CoreSessionKeeper {
  private readonly flights = new SingleFlight<Association>(() => this.events.onJoin?.());
  /** Names this process as a lease owner. */
  private readonly owner = randomUUID();
  private readonly leaseSeconds: number;

  constructor(
    private readonly store: AssociationStore,
    private readonly cores: InstitutionCores,
    private readonly clock: Clock,
    private readonly options: KeeperOptions,
    private readonly events: RenewalEvents = {},
  ) {
    this.leaseSeconds = renewalLeaseSeconds(options.coreTimeoutMs);
  }

  /** The association with a session that will not expire within the skew, renewing if needed. */
  async fresh(association: Association, context: CoreCallContext): Promise<Association> {
    if (association.needsReregistration) throw reregistrationRequired();
    // A session we cannot name to the core is as good as one the core rejected.
    if (association.delegateUnreadable) return this.renew(association, context);
    if (!needsRenewal(association.expiresAt, this.clock.now(), this.options.skewSeconds)) return association;
    return this.renew(association, context);
  }

  /** Starts a new core session replacing `association.version`, shared by every concurrent caller. */
  renew(association: Association, context: CoreCallContext): Promise<Association> {
    const flightKey = JSON.stringify([
      association.institution,
      association.platform,
      association.customerId,
      association.version,
    ]);
    // The core called is always the association's institution's, whoever asked.
    const atCore = atInstitution(context, association.institution);
    return this.flights.run(flightKey, () => {
      if (association.delegateUnreadable) this.events.onUnreadableDelegate?.(association, atCore);
      return this.renewAcrossProcesses(association, atCore);
    });
  }

  private async renewAcrossProcesses(association: Association, context: CoreCallContext): Promise<Association> {
    const key = associationKeyOf(association);
    const pollMs = this.options.pollMs ?? 25;
    const deadline = this.clock.now().getTime() + 2 * this.leaseSeconds * 1000;
    let waiting = false;
    for (;;) {
      const now = this.clock.now();
      const claim = await this.store.claimRenewal(
        key,
        association.version,
        this.owner,
        now,
        new Date(now.getTime() + this.leaseSeconds * 1000),
        context.deadline,
      );
      if (claim.outcome === 'claimed') return this.startNewSession(claim.association, context);
      const current = claim.association;
      if (!current) throw customerNotRegistered();
      if (current.needsReregistration) throw reregistrationRequired();
      // Another process finished a renewal (or a registration replaced the session).
      if (claim.outcome === 'stale') return current;
      if (this.clock.now().getTime() > deadline)
        throw fromCoreFailure(
          // The other process's core call is slow or stuck: a core failure like a timeout of our own.
          new CoreUnavailable('timed out waiting for another process to renew the core session', true),
        );
      if (!waiting) this.events.onWait?.();
      waiting = true;
      await sleep(pollMs);
    }
  }

  private async startNewSession(association: Association, context: CoreCallContext): Promise<Association> {
    const key = associationKeyOf(association);
    let session;
    try {
      const core = await this.cores.coreFor(association.institution, context.deadline);
      session = await core.startSession({ kind: 'customerKey', customerKey: association.customerKey }, context);
      if (session.customerKey !== association.customerKey) {
        throw new CoreProtocolError('the core answered for another customer key', false);
      }
      if (session.expiresAt.getTime() <= this.clock.now().getTime())
        throw new CoreProtocolError('the core answered a session that has already expired', false);
    } catch (error) {
      if (error instanceof CustomerNotRecognised) {
        // The platform's webhook receivers learn it with the mark, in its transaction.
        await this.store.markNeedsReregistration(
          key,
          association.version,
          this.clock.now(),
          [lifecycleEvent('customer.reregistration_required', association)],
          context.deadline,
        );
        await this.events.onReregistrationRequired?.(association, context);
        throw reregistrationRequired();
      }
      await this.store.releaseRenewal(key, this.owner, context.deadline);
      throw fromCoreFailure(error);
    }
    const renewed = await this.store.completeRenewal(
      key,
      association.version,
      this.owner,
      session,
      this.clock.now(),
      context.deadline,
    );
    if (!renewed) {
      // The lease ran out and someone else moved the association on: use theirs.
      const current = await this.store.find(key, context.deadline);
      if (!current) throw customerNotRegistered();
      return current;
    }
    await this.events.onRenewal?.(renewed, context);
    return renewed;
  }
}
