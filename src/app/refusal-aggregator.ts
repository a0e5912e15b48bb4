/**
 * Refusals before authentication (no bearer token, an invalid or expired one, an
 * unknown client at the token endpoint) audited in aggregate (docs/behaviour.md#audit-log):
 * anyone on the network can send them, and one row each would let a flood fill an append-only
 * table. They are counted in memory per (source address, event type, reason) for the current
 * minute; when the minute closes (or on drain) each key becomes one row with its count. At most
 * `maxKeys` keys per minute: the refusals beyond go to one overflow row per event type
 * (`reason` {@link OVERFLOW_REASON}, no address), so memory and rows stay bounded whatever the
 * number of addresses.
 *
 * The table refuses UPDATE, so a row cannot be incremented in place: the counting
 * happens here, and a crash loses at most the current minute's counts (the metrics
 * have counted every refusal already).
 */
import type { AuditEvent, AuditEventType } from '../ports/audit-log.js';
import type { Clock } from '../ports/clock.js';

/** The refusals that are aggregated: what is known of an unauthenticated caller. */
export interface Refusal {
  readonly type: Extract<AuditEventType, 'access.denied' | 'token.denied'>;
  /** A reason code (`missing_token`, `invalid_token`, `invalid_client`). */
  readonly reason: string;
  /** The caller's address as the app sees it (`request.ip`). */
  readonly sourceIp: string;
}

const MINUTE_MS = 60_000;
/** Distinct (address, type, reason) keys counted per minute before the overflow row takes the rest. */
const DEFAULT_MAX_REFUSAL_KEYS = 10_000;
/** The reason of the row that counts the refusals beyond the key limit. */
export const OVERFLOW_REASON = 'aggregated_overflow';

export interface RefusalAggregatorOptions {
  readonly maxKeys?: number;
}

interface Tally {
  readonly refusal: Refusal | undefined;
  readonly type: Refusal['type'];
  count: number;
}

export class RefusalAggregator {
  /** Start (epoch ms) of the minute being counted; `undefined` when nothing is counted. */
  private windowStart: number | undefined;
  private readonly tallies = new Map<string, Tally>();
  private readonly overflow = new Map<Refusal['type'], Tally>();

  constructor(
    private readonly clock: Clock,
    /** Receives the rows of a closed minute (never empty). */
    private readonly write: (events: AuditEvent[]) => void,
    private readonly options: RefusalAggregatorOptions = {},
  ) {}

  /** Counts one refusal in the current minute (closing the previous one if the clock moved on). */
  add(refusal: Refusal): void {
    const minute = this.currentMinute();
    if (this.windowStart !== undefined && minute !== this.windowStart) this.close();
    this.windowStart = minute;
    const key = `${refusal.sourceIp}\u0000${refusal.type}\u0000${refusal.reason}`;
    const tally = this.tallies.get(key);
    if (tally) tally.count += 1;
    else if (this.tallies.size < (this.options.maxKeys ?? DEFAULT_MAX_REFUSAL_KEYS))
      this.tallies.set(key, { refusal, type: refusal.type, count: 1 });
    else {
      const over = this.overflow.get(refusal.type);
      if (over) over.count += 1;
      else this.overflow.set(refusal.type, { refusal: undefined, type: refusal.type, count: 1 });
    }
  }

  /** Writes the counted minute if the clock has left it (called by a timer). */
  closeDue(): void {
    if (this.windowStart !== undefined && this.currentMinute() !== this.windowStart) this.close();
  }

  /** Writes whatever is counted, minute over or not (on shutdown). */
  close(): void {
    if (this.windowStart === undefined) return;
    const occurredAt = new Date(this.windowStart);
    const events = [...this.tallies.values(), ...this.overflow.values()].map((tally): AuditEvent => ({
      type: tally.type,
      outcome: 'failure',
      reason: tally.refusal?.reason ?? OVERFLOW_REASON,
      actor: 'client',
      clientId: null,
      platform: null,
      customerId: null,
      requestId: null,
      count: tally.count,
      sourceIp: tally.refusal?.sourceIp ?? null,
      occurredAt,
    }));
    this.tallies.clear();
    this.overflow.clear();
    this.windowStart = undefined;
    if (events.length > 0) this.write(events);
  }

  private currentMinute(): number {
    const now = this.clock.now().getTime();
    return now - (now % MINUTE_MS);
  }
}
