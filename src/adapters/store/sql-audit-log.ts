import type { AuditActor, AuditEventType, AuditEvent, AuditLog, AuditOutcome, AuditQuery, AuditRecord } from '../../ports/audit-log.js';
import type { Queryable } from './database.js';

interface AuditRow {
  id: string;
  occurred_at: Date;
  event_type: string;
  outcome: string;
  reason: string | null;
  actor: string;
  client_id: string | null;
  platform: string | null;
  institution: string | null;
  customer_id: string | null;
  request_id: string | null;
  count: number | null;
  source_ip: string | null;
}

// The id is read as text: pg answers bigint as a string, PGlite as a bigint.
const COLUMNS = 'id::text as id, occurred_at, event_type, outcome, reason, actor, client_id, platform, institution, customer_id, request_id, count, source_ip';

function toRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    occurredAt: new Date(row.occurred_at),
    type: row.event_type as AuditEventType,
    outcome: row.outcome as AuditOutcome,
    reason: row.reason,
    actor: row.actor as AuditActor,
    clientId: row.client_id,
    platform: row.platform,
    ...(row.institution === null ? {} : { institution: row.institution }),
    customerId: row.customer_id,
    requestId: row.request_id,
    ...(row.count === null ? {} : { count: Number(row.count) }),
    ...(row.source_ip === null ? {} : { sourceIp: row.source_ip }),
  };
}

/** Rows of one insert at most. */
const MAX_BATCH = 500;

interface PendingRecord {
  readonly event: AuditEvent;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The audit log in the `audit_log` table; it only ever inserts (the table refuses
 * anything else). Writes are group-committed: the events recorded while one insert
 * runs go together in the next one, and each `record()` resolves once its own row is
 * written. Every request still waits for a durable row, but a busy gateway makes one
 * insert per batch instead of one per request.
 */
export class SqlAuditLog implements AuditLog {
  private pending: PendingRecord[] = [];
  private writing = false;

  constructor(private readonly db: Queryable) {}

  record(event: AuditEvent): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ event, resolve, reject });
      // Wait one turn of the event loop so that concurrent requests join the batch.
      if (!this.writing && this.pending.length === 1) setImmediate(() => void this.writeBatches());
    });
  }

  private async writeBatches(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        try {
          await this.insert(batch.map((record) => record.event));
          for (const record of batch) record.resolve();
        } catch (error) {
          for (const record of batch) record.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async insert(events: readonly AuditEvent[]): Promise<void> {
    // One column array per parameter: the statement text is the same for every batch size,
    // so PostgreSQL plans it once per connection (a VALUES list had one text per size).
    const column = <T>(value: (event: AuditEvent) => T) => events.map(value);
    await this.db.query(
      `insert into audit_log (occurred_at, event_type, outcome, reason, actor, client_id, platform, institution, customer_id, request_id, count, source_ip)
       select * from unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::integer[], $12::text[])`,
      [
        column((event) => event.occurredAt),
        column((event) => event.type),
        column((event) => event.outcome),
        column((event) => event.reason),
        column((event) => event.actor),
        column((event) => event.clientId),
        column((event) => event.platform),
        column((event) => event.institution ?? null),
        column((event) => event.customerId),
        column((event) => event.requestId),
        column((event) => event.count ?? null),
        column((event) => event.sourceIp ?? null),
      ],
    );
  }

  async list(query: AuditQuery): Promise<AuditRecord[]> {
    // Only the filters given become conditions, so that each query can use its index.
    const conditions: string[] = [];
    const params: unknown[] = [];
    const where = (column: string, operator: string, value: unknown) => {
      params.push(value);
      conditions.push(`${column} ${operator} $${params.length}`);
    };
    if (query.platform !== undefined) where('platform', '=', query.platform);
    if (query.customerId !== undefined) where('customer_id', '=', query.customerId);
    if (query.since !== undefined) where('occurred_at', '>=', query.since);
    if (query.until !== undefined) where('occurred_at', '<', query.until);
    if (query.type !== undefined) where('event_type', '=', query.type);
    params.push(query.limit);
    const rows = await this.db.query<AuditRow>(
      `select ${COLUMNS} from audit_log
       ${conditions.length > 0 ? `where ${conditions.join(' and ')}` : ''}
       order by occurred_at desc, id desc
       limit $${params.length}`,
      params,
    );
    return rows.map(toRecord);
  }
}
