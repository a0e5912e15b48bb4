/**
 * How the use cases and the HTTP layer write the audit log (CONTRACT §6).
 *
 * Durability without fragility: a request waits for its audit row — a platform
 * that got an answer can rely on the row being committed — but an audit write
 * never changes the answer. A failed write is logged at error level with the
 * whole event (which holds no personal data), so the log is the fallback record;
 * a write slower than `waitMs` lets the request go on and finishes behind it.
 */
import type { Association } from '../domain/association.js';
import type { AuditEvent, AuditLog } from '../ports/audit-log.js';
import type { Clock } from '../ports/clock.js';
import type { CoreCallContext } from '../ports/core-connector.js';
import type { RenewalEvents } from './core-session-keeper.js';

/** An event as the callers describe it; the trail stamps the time. */
export type AuditEntry = Omit<AuditEvent, 'occurredAt'>;

/** How long a request waits for its audit row before answering without it (the write goes on). */
export const DEFAULT_AUDIT_WAIT_MS = 2_000;

export interface AuditTrailOptions {
  /** How long a caller waits for its audit row before going on without it; {@link DEFAULT_AUDIT_WAIT_MS} by default. */
  readonly waitMs?: number;
  /** Told about every write that failed (to log it at error level). */
  readonly onFailure: (error: unknown, event: AuditEvent) => void;
}

export class AuditTrail {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly log: AuditLog,
    private readonly clock: Clock,
    private readonly options: AuditTrailOptions,
  ) {}

  /** Appends the event; never throws, and never keeps the caller longer than `waitMs`. */
  async record(entry: AuditEntry): Promise<void> {
    const event: AuditEvent = { ...entry, occurredAt: this.clock.now() };
    let write: Promise<void>;
    try {
      write = this.log.record(event).catch((error: unknown) => this.options.onFailure(error, event));
    } catch (error) {
      this.options.onFailure(error, event);
      return;
    }
    this.pending.add(write);
    void write.then(() => this.pending.delete(write));
    let timer: NodeJS.Timeout | undefined;
    // Not unref'd: it is cleared as soon as the write ends, and must not let the loop exit meanwhile.
    const patience = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.waitMs ?? DEFAULT_AUDIT_WAIT_MS);
    });
    await Promise.race([write, patience]);
    clearTimeout(timer);
  }

  /** Waits for the writes still under way (before the database closes). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

/** Audit events of core session renewals, for {@link CoreSessionKeeper}. */
export function auditedRenewals(trail: AuditTrail): Required<Pick<RenewalEvents, 'onRenewal' | 'onReregistrationRequired'>> {
  const entry = (association: Association, context: CoreCallContext) => ({
    actor: 'client' as const,
    clientId: context.clientId ?? null,
    platform: association.platform,
    institution: association.institution,
    customerId: association.customerId,
    requestId: context.requestId,
  });
  return {
    onRenewal: (association, context) => trail.record({ type: 'session.renewed', outcome: 'success', reason: null, ...entry(association, context) }),
    onReregistrationRequired: (association, context) =>
      trail.record({ type: 'session.reregistration_required', outcome: 'failure', reason: 'customer_not_recognised', ...entry(association, context) }),
  };
}
