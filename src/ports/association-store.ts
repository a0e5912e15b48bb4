/**
 * Persistence of customer associations. The delegate reference ID is stored
 * sealed; the store seals and opens through the `SecretSealer` it was given, so
 * callers only ever see it in clear, in memory.
 */
import type { Association, AssociationKey } from '../domain/association.js';
import type { LifecycleEvent } from '../domain/lifecycle-event.js';
import type { AuditEvent } from './audit-log.js';
import type { DatabaseDeadline } from './database-deadline.js';

/** Webhook events (and the audit row) a deletion records in its own transaction, if it deletes something. */
export interface EventsToRecord {
  readonly events: readonly LifecycleEvent[];
  readonly now: Date;
  /** The audit row of the deletion: committed with it or not at all. */
  readonly audit?: AuditEvent;
}

export interface NewSession {
  readonly customerKey: string;
  readonly delegateReferenceId: string;
  readonly expiresAt: Date;
}

export type RegisterResult =
  | { readonly outcome: 'registered'; readonly association: Association }
  /** The customerId is already associated with another core customer; nothing changed. */
  | { readonly outcome: 'conflict' };

export type ClaimResult =
  | { readonly outcome: 'claimed'; readonly association: Association }
  /** Another process holds the renewal lease, or the version moved on. */
  | { readonly outcome: 'busy' | 'stale'; readonly association: Association | undefined };

/** What an operator may see of an association: never the delegate reference ID, not even sealed. */
export interface AssociationSummary extends AssociationKey {
  readonly customerKey: string;
  readonly expiresAt: Date;
  readonly needsReregistration: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * `deadline` on a method: the calling request's time for the database
 * (`database-deadline.ts`); every wait of the call counts against it.
 */
export interface AssociationStore {
  find(key: AssociationKey, deadline?: DatabaseDeadline): Promise<Association | undefined>;
  /**
   * Creates the association, or refreshes it with a new session when it already
   * names the same core customer (idempotent registration; clears re-registration).
   * `events` are recorded in the same transaction only when the association is created
   * (never for an idempotent repeat): the transactional outbox of webhooks. `audit`, the
   * registration's audit row, is written by the same statement whenever it stores the
   * association (created or refreshed), and not at all on a conflict.
   */
  register(
    key: AssociationKey,
    session: NewSession,
    now: Date,
    events?: readonly LifecycleEvent[],
    audit?: AuditEvent,
    deadline?: DatabaseDeadline,
  ): Promise<RegisterResult>;
  /**
   * Takes the renewal lease of the association at `version` until `leaseUntil`, so
   * that across processes one caller renews while the others wait (compare-and-swap).
   */
  claimRenewal(
    key: AssociationKey,
    version: number,
    owner: string,
    now: Date,
    leaseUntil: Date,
    deadline?: DatabaseDeadline,
  ): Promise<ClaimResult>;
  /** Stores the new session of a claimed renewal; `undefined` if the lease was lost meanwhile. */
  completeRenewal(
    key: AssociationKey,
    version: number,
    owner: string,
    session: NewSession,
    now: Date,
    deadline?: DatabaseDeadline,
  ): Promise<Association | undefined>;
  /** Gives the lease back after a failed renewal. */
  releaseRenewal(key: AssociationKey, owner: string, deadline?: DatabaseDeadline): Promise<void>;
  /** Marks that only a new registration can help: the core no longer knows the customer key. */
  /** `events` are recorded in the same transaction, only by the call that turns the mark on. */
  markNeedsReregistration(
    key: AssociationKey,
    version: number,
    now: Date,
    events?: readonly LifecycleEvent[],
    deadline?: DatabaseDeadline,
  ): Promise<void>;

  // Operator administration (`coregate sessions …`).
  /**
   * A platform's associations ordered by customerId, at most `limit`, at one institution
   * or (without it) at every one; delegate reference IDs are not even read.
   */
  listByPlatform(platform: string, limit: number, institution?: string): Promise<AssociationSummary[]>;
  /** Deletes the association, so that the customerId must be registered again; true when there was one. */
  delete(key: AssociationKey, record?: EventsToRecord, deadline?: DatabaseDeadline): Promise<boolean>;
}
