import type {
  AuditActor,
  AuditEventType,
  AuditEvent,
  AuditLog,
  AuditOutcome,
  AuditQuery,
  AuditRecord,
} from '../../ports/audit-log.js';
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
const COLUMNS =
  'id::text as id, occurred_at, event_type, outcome, reason, actor, client_id, platform, institution, customer_id, request_id, count, source_ip';

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
    await insertAuditEvents(this.db, events);
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
    if (query.actor !== undefined) where('actor', '=', query.actor);
    // Keyset paging in the listing's own order: what follows the given event.
    if (query.before !== undefined) {
      params.push(query.before);
      conditions.push(
        `(occurred_at, id) < (select occurred_at, id from audit_log where id = $${params.length}::bigint)`,
      );
    }
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

const INSERT_COLUMNS =
  'occurred_at, event_type, outcome, reason, actor, client_id, platform, institution, customer_id, request_id, count, source_ip';

/** The values of an event, in the order of {@link INSERT_COLUMNS}. */
function columnValues(event: AuditEvent): unknown[] {
  return [
    event.occurredAt,
    event.type,
    event.outcome,
    event.reason,
    event.actor,
    event.clientId,
    event.platform,
    event.institution ?? null,
    event.customerId,
    event.requestId,
    event.count ?? null,
    event.sourceIp ?? null,
  ];
}

const COLUMN_TYPES = [
  'timestamptz',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'integer',
  'text',
];

// One column array per parameter: the statement text is the same for every batch size,
// so PostgreSQL plans it once per connection (a VALUES list had one text per size).
const INSERT_STATEMENT = `insert into audit_log (${INSERT_COLUMNS})
  select * from unnest(${COLUMN_TYPES.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})`;

/**
 * Appends `events` on `db` — the audit log's own connection, or the transaction of the change
 * the events record (docs/operations.md#audit-log: then both are committed or neither).
 */
export async function insertAuditEvents(db: Queryable, events: readonly AuditEvent[]): Promise<void> {
  const values = events.map(columnValues);
  await db.query(
    INSERT_STATEMENT,
    COLUMN_TYPES.map((_type, index) => values.map((row) => row[index])),
  );
}

/**
 * The audit row of a change as a common table expression, to join to the statement that makes
 * the change: written only when the CTE `source` yields a row, and committed with the change or
 * not at all. `params` is the statement's parameter list, appended to.
 */
export function auditEventCte(event: AuditEvent, params: unknown[], source: string): string {
  const values = columnValues(event);
  const placeholders = COLUMN_TYPES.map((type, index) => `$${params.push(values[index])}::${type}`);
  return `audit_row as (insert into audit_log (${INSERT_COLUMNS}) select ${placeholders.join(', ')} where exists (select 1 from ${source}))`;
}
