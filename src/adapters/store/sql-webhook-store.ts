/**
 * Webhook endpoints and the delivery outbox on PostgreSQL and PGlite alike.
 * Leasing uses `FOR UPDATE SKIP LOCKED`, which both engines have: rows another
 * process is claiming are skipped rather than waited for, and the lease columns
 * keep a claimed delivery out of every other claim until it expires (a process
 * killed mid-delivery gives its deliveries back when the lease runs out).
 *
 * Why not pg-boss or graphile-worker: both need a PostgreSQL server — graphile-worker
 * waits on LISTEN/NOTIFY and installs its own schema with functions and triggers,
 * pg-boss runs its own maintenance and schema — and neither runs on the embedded
 * PGlite, where coregate must deliver too. The outbox is a few statements on the
 * tables we already migrate; a poll plus a nudge after our own commits replaces NOTIFY.
 */
import type { SecretSealer } from '../../ports/secret-sealer.js';
import type {
  AttemptOutcome,
  ClaimFairness,
  ClaimedDelivery,
  DeliveryStatus,
  DeliveryView,
  NewWebhookEndpoint,
  QueueStats,
  WebhookEndpoint,
  WebhookStore,
} from '../../ports/webhook-store.js';
import type { Database, Queryable } from './database.js';

interface EndpointRow {
  id: string;
  platform: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const ENDPOINT_COLUMNS = 'id, platform, url, events, enabled, disabled_reason, created_at, updated_at';

/** Binds a sealed secret to its endpoint. */
function sealContext(id: string): string {
  return `webhook-secret:${id}`;
}

function keyIdOf(sealed: string): string {
  return sealed.split('.')[1] ?? '';
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    platform: row.platform,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** At most this much of an error goes into the table (it is shown by `webhooks deliveries`). */
const MAX_ERROR_LENGTH = 200;

/** A disabled endpoint's pending deliveries will never be sent: failed now, so the queue depth shows only real work. */
async function failPending(tx: Queryable, endpointId: string, error: string): Promise<void> {
  await tx.query(
    `update webhook_deliveries set status = 'failed', last_error = $2, lease_owner = null, lease_until = null
     where endpoint_id = $1 and status = 'pending'`,
    [endpointId, error],
  );
}

export class SqlWebhookStore implements WebhookStore {
  constructor(
    private readonly db: Database,
    private readonly sealer: SecretSealer,
  ) {}

  async addEndpoint(endpoint: NewWebhookEndpoint, now: Date): Promise<WebhookEndpoint> {
    const sealed = this.sealer.seal(endpoint.secret, sealContext(endpoint.id));
    const rows = await this.db.query<EndpointRow>(
      `insert into webhook_endpoints (id, platform, url, events, secret_sealed, secret_key_id, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $7) returning ${ENDPOINT_COLUMNS}`,
      [endpoint.id, endpoint.platform, endpoint.url, [...endpoint.events], sealed, keyIdOf(sealed), now],
    );
    return toEndpoint(rows[0]!);
  }

  async listEndpoints(platform: string): Promise<WebhookEndpoint[]> {
    const rows = await this.db.query<EndpointRow>(
      `select ${ENDPOINT_COLUMNS} from webhook_endpoints where platform = $1 order by created_at, id`,
      [platform],
    );
    return rows.map(toEndpoint);
  }

  async findEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    const rows = await this.db.query<EndpointRow>(`select ${ENDPOINT_COLUMNS} from webhook_endpoints where id = $1`, [
      id,
    ]);
    return rows[0] && toEndpoint(rows[0]);
  }

  async removeEndpoint(id: string): Promise<boolean> {
    const rows = await this.db.query('delete from webhook_endpoints where id = $1 returning id', [id]);
    return rows.length > 0;
  }

  async setEnabled(id: string, enabled: boolean, now: Date, reason = 'operator'): Promise<WebhookEndpoint | undefined> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<EndpointRow>(
        `update webhook_endpoints set enabled = $2, disabled_reason = $3, updated_at = $4 where id = $1 returning ${ENDPOINT_COLUMNS}`,
        [id, enabled, enabled ? null : reason, now],
      );
      if (rows[0] && !enabled) await failPending(tx, id, `endpoint disabled (${reason})`);
      return rows[0] && toEndpoint(rows[0]);
    });
  }

  async rotateSecret(id: string, secret: string, now: Date, previousUntil: Date): Promise<WebhookEndpoint | undefined> {
    const sealed = this.sealer.seal(secret, sealContext(id));
    const rows = await this.db.query<EndpointRow>(
      `update webhook_endpoints set previous_secret_sealed = secret_sealed, previous_secret_until = $4,
         secret_sealed = $2, secret_key_id = $3, updated_at = $5
       where id = $1 returning ${ENDPOINT_COLUMNS}`,
      [id, sealed, keyIdOf(sealed), previousUntil, now],
    );
    return rows[0] && toEndpoint(rows[0]);
  }

  async claimDue(
    owner: string,
    now: Date,
    leaseUntil: Date,
    limit: number,
    fairness?: ClaimFairness,
  ): Promise<ClaimedDelivery[]> {
    const busy = [...(fairness?.busy ?? new Map<string, number>())];
    const rows = await this.db.query<{
      id: string;
      event_id: string;
      type: string;
      endpoint_id: string;
      platform: string;
      url: string;
      payload: string;
      secret_sealed: string;
      previous_secret_sealed: string | null;
      previous_secret_until: Date | null;
      attempts: number;
    }>(
      // Each endpoint's due deliveries ranked oldest first: a rank past what its free slots allow
      // is left for a later claim, so one endpoint's backlog never fills the whole claim.
      `with ranked as (
         select d.id, row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.seq)
           + coalesce((select b.n from unnest($5::text[], $6::int[]) as b(endpoint_id, n) where b.endpoint_id = d.endpoint_id), 0) as slot
         from webhook_deliveries d
         join webhook_endpoints e on e.id = d.endpoint_id and e.enabled
         where d.status = 'pending' and d.next_attempt_at <= $2 and (d.lease_until is null or d.lease_until <= $2)
       ),
       due as (
         select d.id from webhook_deliveries d
         join ranked r on r.id = d.id
         where r.slot <= $7 and d.status = 'pending' and (d.lease_until is null or d.lease_until <= $2)
         order by d.next_attempt_at, d.seq
         limit $4
         for update of d skip locked
       )
       update webhook_deliveries d set lease_owner = $1, lease_until = $3
       from due, webhook_events ev, webhook_endpoints e
       where d.id = due.id and ev.id = d.event_id and e.id = d.endpoint_id
       returning d.id, d.event_id, ev.type, d.endpoint_id, e.platform, e.url, ev.payload, e.secret_sealed,
         e.previous_secret_sealed, e.previous_secret_until, d.attempts`,
      [
        owner,
        now,
        leaseUntil,
        limit,
        busy.map(([id]) => id),
        busy.map(([, count]) => count),
        fairness?.perEndpoint ?? limit,
      ],
    );
    return rows.map((row) => {
      const secrets = [this.sealer.open(row.secret_sealed, sealContext(row.endpoint_id))];
      if (row.previous_secret_sealed && row.previous_secret_until && new Date(row.previous_secret_until) > now) {
        secrets.push(this.sealer.open(row.previous_secret_sealed, sealContext(row.endpoint_id)));
      }
      return {
        id: row.id,
        eventId: row.event_id,
        eventType: row.type,
        endpointId: row.endpoint_id,
        platform: row.platform,
        url: row.url,
        body: row.payload,
        secrets,
        attempts: Number(row.attempts),
      };
    });
  }

  async recordAttempt(id: string, owner: string, outcome: AttemptOutcome, now: Date): Promise<boolean> {
    const error = 'error' in outcome ? outcome.error.slice(0, MAX_ERROR_LENGTH) : null;
    const status: DeliveryStatus =
      outcome.kind === 'delivered' ? 'delivered' : outcome.kind === 'retry' ? 'pending' : 'failed';
    const next = outcome.kind === 'retry' ? outcome.nextAttemptAt : now;
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ endpoint_id: string }>(
        `update webhook_deliveries set status = $3, attempts = attempts + 1, last_status = $4, last_error = $5,
           next_attempt_at = $6, delivered_at = $7, lease_owner = null, lease_until = null
         where id = $1 and lease_owner = $2 returning endpoint_id`,
        [id, owner, status, outcome.status, error, next, outcome.kind === 'delivered' ? now : null],
      );
      if (outcome.kind === 'gone' && rows[0]) {
        await tx.query(
          `update webhook_endpoints set enabled = false, disabled_reason = 'gone', updated_at = $2 where id = $1`,
          [rows[0].endpoint_id, now],
        );
        await failPending(tx, rows[0].endpoint_id, 'endpoint disabled (410 Gone)');
      }
      return rows.length > 0;
    });
  }

  async retryDelivery(id: string, now: Date): Promise<boolean> {
    const rows = await this.db.query(
      `update webhook_deliveries d set status = 'pending', next_attempt_at = $2, lease_owner = null, lease_until = null
       where d.id = $1 and d.status = 'failed'
         and exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id and e.enabled)
       returning d.id`,
      [id, now],
    );
    return rows.length > 0;
  }

  async listDeliveries(platform: string, limit: number): Promise<DeliveryView[]> {
    const rows = await this.db.query<{
      id: string;
      type: string;
      endpoint_id: string;
      url: string;
      status: DeliveryStatus;
      attempts: number;
      last_status: number | null;
      last_error: string | null;
      next_attempt_at: Date;
      created_at: Date;
      delivered_at: Date | null;
    }>(
      `select d.id, ev.type, d.endpoint_id, e.url, d.status, d.attempts, d.last_status, d.last_error, d.next_attempt_at, d.created_at, d.delivered_at
       from webhook_deliveries d join webhook_events ev on ev.id = d.event_id join webhook_endpoints e on e.id = d.endpoint_id
       where e.platform = $1 order by d.created_at desc, d.seq desc limit $2`,
      [platform, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      eventType: row.type,
      endpointId: row.endpoint_id,
      url: row.url,
      status: row.status,
      attempts: Number(row.attempts),
      lastStatus: row.last_status === null ? null : Number(row.last_status),
      lastError: row.status === 'delivered' ? null : row.last_error,
      nextAttemptAt: row.status === 'pending' ? new Date(row.next_attempt_at) : null,
      createdAt: new Date(row.created_at),
      deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at),
    }));
  }

  async queueStats(now: Date): Promise<QueueStats> {
    const rows = await this.db.query<{ pending: number; oldest: Date | null }>(
      `select count(*)::int as pending, min(created_at) as oldest from webhook_deliveries where status = 'pending'`,
    );
    const row = rows[0];
    const oldest = row?.oldest ? Math.max(0, (now.getTime() - new Date(row.oldest).getTime()) / 1000) : 0;
    return { pending: Number(row?.pending ?? 0), oldestPendingSeconds: oldest };
  }

  async pruneSettled(before: Date, limit: number): Promise<number> {
    const deliveries = await this.db.query(
      `delete from webhook_deliveries where id in (
         select id from webhook_deliveries where status <> 'pending' and created_at < $1 order by created_at limit $2)
       returning id`,
      [before, limit],
    );
    const events = await this.db.query(
      `delete from webhook_events where id in (
         select ev.id from webhook_events ev
         where ev.created_at < $1 and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id)
         order by ev.created_at limit $2)
       returning id`,
      [before, limit],
    );
    return deliveries.length + events.length;
  }
}
