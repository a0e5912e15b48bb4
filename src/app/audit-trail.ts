/**
 * How the use cases and the HTTP layer write the audit log (docs/behaviour.md#audit-log).
 *
 * Durability without fragility: a request waits for its audit row — a platform
 * that got an answer can rely on the row being committed — but an audit write
 * never changes the answer. A failed write is logged at error level with the
 * whole event (which holds no personal data), so the log is the fallback record;
 * a write slower than `waitMs` lets the request go on and finishes behind it. The wait is
 * one of the request's waits for the database (`ports/database-deadline.ts`): it gets only
 * what the request's deadline has left, and none at all once a database that does not answer
 * has used it up — the row is then written behind the answer, or logged, never waited for.
 */
import type { Association, AssociationKey } from '../domain/association.js';
import type { AuditEvent, AuditLog } from '../ports/audit-log.js';
import type { Clock } from '../ports/clock.js';
import type { CoreCallContext } from '../ports/core-connector.js';
import type { DatabaseDeadline } from '../ports/database-deadline.js';
import type { RenewalEvents } from './core-session-keeper.js';
import { RefusalAggregator, type Refusal } from './refusal-aggregator.js';

/** An event as the callers describe it; the trail stamps the time. */
export type AuditEntry = Omit<AuditEvent, 'occurredAt'>;

/** How long a request waits for its audit row before answering without it (the write goes on). */
const DEFAULT_AUDIT_WAIT_MS = 2_000;

export interface AuditTrailOptions {
  /** How long a caller waits for its audit row before going on without it; {@link DEFAULT_AUDIT_WAIT_MS} by default. */
  readonly waitMs?: number;
  /** Told about every write that failed (to log it at error level). */
  readonly onFailure: (error: unknown, event: AuditEvent) => void;
  /** Distinct keys of aggregated refusals per minute (`app/refusal-aggregator.ts`); 10,000 by default. */
  readonly maxRefusalKeys?: number;
}

/** How often a counted minute of refusals is checked for having closed. */
const REFUSAL_CHECK_MS = 5_000;

export class AuditTrail {
  private readonly pending = new Set<Promise<void>>();
  private readonly refusals: RefusalAggregator;
  private refusalTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: AuditLog,
    private readonly clock: Clock,
    private readonly options: AuditTrailOptions,
  ) {
    this.refusals = new RefusalAggregator(
      clock,
      (events) => {
        for (const event of events) void this.append(event);
      },
      options.maxRefusalKeys === undefined ? {} : { maxKeys: options.maxRefusalKeys },
    );
  }

  /**
   * Appends the event; never throws, and never keeps the caller longer than `waitMs`, nor longer
   * than `deadline` (the request's time for the database) has left.
   */
  async record(entry: AuditEntry, deadline?: DatabaseDeadline): Promise<void> {
    await this.append(stamped(entry, this.clock.now()), deadline);
  }

  /**
   * Counts a refusal before authentication; its row, one per address, type and reason and
   * minute, is written once the minute is over (see `refusal-aggregator.ts`). Never waits.
   */
  refused(refusal: Refusal): void {
    this.refusals.add(refusal);
    // Unref'd: a counted minute must not keep the process alive; drain() writes it.
    this.refusalTimer ??= setInterval(() => this.refusals.closeDue(), REFUSAL_CHECK_MS).unref();
  }

  /** Writes the aggregated refusals of a minute that is over (the timer does it every few seconds). */
  closeDueRefusals(): void {
    this.refusals.closeDue();
  }

  private async append(event: AuditEvent, deadline?: DatabaseDeadline): Promise<void> {
    let write: Promise<void>;
    try {
      write = this.log.record(event).catch((error: unknown) => this.options.onFailure(error, event));
    } catch (error) {
      this.options.onFailure(error, event);
      return;
    }
    this.pending.add(write);
    void write.then(() => this.pending.delete(write));
    const waitMs = Math.min(
      this.options.waitMs ?? DEFAULT_AUDIT_WAIT_MS,
      deadline?.remainingMs ?? Number.POSITIVE_INFINITY,
    );
    if (waitMs <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    // Not unref'd: it is cleared as soon as the write ends, and must not let the loop exit meanwhile.
    const patience = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([write, patience]);
    clearTimeout(timer);
  }

  /** Writes the refusals counted so far and waits for the writes still under way (before the database closes). */
  async drain(): Promise<void> {
    clearInterval(this.refusalTimer);
    this.refusalTimer = undefined;
    this.refusals.close();
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

/**
 * The entry with its time. Copied field by field: `{ ...entry, occurredAt }` costs V8 a slow copy
 * of the spread on every request, more than its profile share shows (docs/benchmarks.md).
 * An aggregated row's `count` and `sourceIp` are kept only if the entry has them (a rare path).
 */
function stamped(entry: AuditEntry, occurredAt: Date): AuditEvent {
  const event = {
    type: entry.type,
    outcome: entry.outcome,
    reason: entry.reason,
    actor: entry.actor,
    clientId: entry.clientId,
    platform: entry.platform,
    institution: entry.institution ?? null,
    customerId: entry.customerId,
    requestId: entry.requestId,
    occurredAt,
  };
  return entry.count === undefined && entry.sourceIp === undefined
    ? event
    : { ...event, count: entry.count ?? null, sourceIp: entry.sourceIp ?? null };
}

/**
 * The success row of a platform's change to its customer (registration, deregistration), for the
 * store to write in the change's own transaction: the change and its row are committed together
 * or not at all (docs/operations.md#audit-log). The HTTP layer then writes no second row.
 */
export function changeAuditEvent(
  type: 'session.registered' | 'session.deregistered',
  key: AssociationKey,
  context: CoreCallContext,
  occurredAt: Date,
): AuditEvent {
  return {
    type,
    outcome: 'success',
    reason: null,
    actor: 'client',
    clientId: context.clientId ?? null,
    platform: key.platform,
    institution: key.institution,
    customerId: key.customerId,
    requestId: context.requestId,
    occurredAt,
  };
}

/** Audit events of core session renewals, for {@link CoreSessionKeeper}. */
export function auditedRenewals(
  trail: AuditTrail,
): Required<Pick<RenewalEvents, 'onRenewal' | 'onReregistrationRequired'>> {
  const entry = (association: Association, context: CoreCallContext) => ({
    actor: 'client' as const,
    clientId: context.clientId ?? null,
    platform: association.platform,
    institution: association.institution,
    customerId: association.customerId,
    requestId: context.requestId,
  });
  return {
    onRenewal: (association, context) =>
      trail.record(
        { type: 'session.renewed', outcome: 'success', reason: null, ...entry(association, context) },
        context.deadline,
      ),
    onReregistrationRequired: (association, context) =>
      trail.record(
        {
          type: 'session.reregistration_required',
          outcome: 'failure',
          reason: 'customer_not_recognised',
          ...entry(association, context),
        },
        context.deadline,
      ),
  };
}
