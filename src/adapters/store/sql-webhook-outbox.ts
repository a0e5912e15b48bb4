/**
 * The transactional outbox of webhook events (docs/behaviour.md#webhook-delivery): an event is
 * written by the same transaction as the change that causes it, with one delivery row per
 * enabled endpoint of the platform that wants its type (and not at all when no endpoint wants
 * it). A process dying after the commit loses nothing: the dispatcher finds the pending rows.
 */
import { randomBytes } from 'node:crypto';
import type { LifecycleEvent } from '../../domain/lifecycle-event.js';
import type { Queryable } from './database.js';

/** A new event id, `msg_` + 128 random bits: the `webhook-id` of every delivery of the event. */
function newEventId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** The exact body sent to receivers: `{"type", "timestamp", "data"}`. */
function eventBody(event: LifecycleEvent, now: Date): string {
  return JSON.stringify({ type: event.type, timestamp: now.toISOString(), data: event.data });
}

/**
 * The endpoints an event of `type` on `platform` goes to (SQL condition on alias `e`). An event
 * no endpoint wants is not written at all: the outbox holds only what will be sent.
 */
function wantedBy(platform: string, type: string): string {
  return `e.platform = ${platform} and e.enabled and (cardinality(e.events) = 0 or ${type} = any (e.events))`;
}

/** Writes `events` and their deliveries on `tx` (the caller's transaction). Returns how many deliveries were queued. */
export async function recordLifecycleEvents(
  tx: Queryable,
  events: readonly LifecycleEvent[],
  now: Date,
): Promise<number> {
  let queued = 0;
  for (const event of events) {
    const rows = await tx.query(
      `with event as (insert into webhook_events (id, type, platform, payload, created_at)
         select $1, $3::text, $2::text, $4, $5 where exists (select 1 from webhook_endpoints e where ${wantedBy('$2::text', '$3::text')}) returning id)
       insert into webhook_deliveries (id, event_id, endpoint_id, next_attempt_at, created_at)
       select ev.id || '.' || e.id, ev.id, e.id, $5, $5 from event ev, webhook_endpoints e
       where ${wantedBy('$2::text', '$3::text')}
       returning id`,
      [newEventId(), event.platform, event.type, eventBody(event, now), now],
    );
    queued += rows.length;
  }
  return queued;
}

/**
 * The same writes as {@link recordLifecycleEvents}, as common table expressions to join to a
 * statement whose CTE `source` yields a row `inserted` only when the change happened: the
 * change and its events are then one statement (atomic without a transaction, one round trip
 * instead of four). `params` is the statement's parameter list, appended to; `queued` is the
 * expression counting the deliveries queued.
 */
export function lifecycleEventCtes(
  events: readonly LifecycleEvent[],
  now: Date,
  params: unknown[],
  source: string,
): { ctes: string[]; queued: string } {
  if (events.length === 0) return { ctes: [], queued: '0' };
  const at = `$${params.push(now)}`;
  const ctes: string[] = [];
  const counts: string[] = [];
  events.forEach((event, index) => {
    const id = `$${params.push(newEventId())}`;
    const type = `$${params.push(event.type)}::text`;
    const platform = `$${params.push(event.platform)}::text`;
    const payload = `$${params.push(eventBody(event, now))}`;
    ctes.push(
      `event_${index} as (insert into webhook_events (id, type, platform, payload, created_at)
         select ${id}, ${type}, ${platform}, ${payload}, ${at} where exists (select 1 from ${source} where inserted)
           and exists (select 1 from webhook_endpoints e where ${wantedBy(platform, type)}) returning id)`,
      `deliveries_${index} as (insert into webhook_deliveries (id, event_id, endpoint_id, next_attempt_at, created_at)
         select ev.id || '.' || e.id, ev.id, e.id, ${at}, ${at} from event_${index} ev, webhook_endpoints e
         where ${wantedBy(platform, type)}
         returning id)`,
    );
    counts.push(`(select count(*) from deliveries_${index})`);
  });
  return { ctes, queued: counts.join(' + ') };
}
