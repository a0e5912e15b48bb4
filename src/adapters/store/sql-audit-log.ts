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
  customer_id: string | null;
  request_id: string | null;
}

// The id is read as text: pg answers bigint as a string, PGlite as a bigint.
const COLUMNS = 'id::text as id, occurred_at, event_type, outcome, reason, actor, client_id, platform, customer_id, request_id';

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
    customerId: row.customer_id,
    requestId: row.request_id,
  };
}

/** The audit log in the `audit_log` table; it only ever inserts (the table refuses anything else). */
export class SqlAuditLog implements AuditLog {
  constructor(private readonly db: Queryable) {}

  async record(event: AuditEvent): Promise<void> {
    await this.db.query(
      `insert into audit_log (occurred_at, event_type, outcome, reason, actor, client_id, platform, customer_id, request_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [event.occurredAt, event.type, event.outcome, event.reason, event.actor, event.clientId, event.platform, event.customerId, event.requestId],
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
