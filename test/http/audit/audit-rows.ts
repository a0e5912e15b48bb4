/** Reading the audit table as stored, for the audit HTTP tests. */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from '../../support/harness.js';

/** A row of `audit_log`, every column. */
export interface AuditRow {
  readonly id: string;
  readonly occurred_at: Date;
  readonly event_type: string;
  readonly outcome: string;
  readonly reason: string | null;
  readonly actor: string;
  readonly client_id: string | null;
  readonly platform: string | null;
  readonly customer_id: string | null;
  readonly request_id: string | null;
}

/** What a test expects of a row; `occurred_at` and `id` are checked apart. */
export type ExpectedRow = Omit<AuditRow, 'id' | 'occurred_at' | 'request_id'>;

const SELECT =
  'select id::text as id, occurred_at, event_type, outcome, reason, actor, client_id, platform, customer_id, request_id from audit_log';

/** Every row, in append order (the refusals counted in the current minute written first). */
export async function allAuditRows(h: Harness): Promise<AuditRow[]> {
  await h.services.audit.drain();
  return h.services.database.query<AuditRow>(`${SELECT} order by id`);
}

/** The rows written for the request that got `response` (by its `X-Request-Id`), in append order. */
export async function rowsOf(h: Harness, response: LightMyRequestResponse): Promise<AuditRow[]> {
  const requestId = response.headers['x-request-id'];
  assert.equal(typeof requestId, 'string', 'every answer names its request id');
  // A refused client authentication's row is written after its answer (docs/behaviour.md#audit-log).
  await h.services.audit.drain();
  return h.services.database.query<AuditRow>(`${SELECT} where request_id = $1 order by id`, [requestId]);
}

/**
 * Asserts the request wrote exactly `expected`, in order, each stamped with the
 * request's id and the harness clock's time.
 */
export async function assertAudited(
  h: Harness,
  response: LightMyRequestResponse,
  expected: readonly ExpectedRow[],
  why = '',
): Promise<void> {
  const rows = await rowsOf(h, response);
  const context = `${why ? `${why}: ` : ''}${response.statusCode} ${response.body.slice(0, 300)}\nrows: ${JSON.stringify(rows)}`;
  assert.deepEqual(
    rows.map(({ id: _id, occurred_at: _at, request_id: _request, ...row }) => row),
    expected,
    context,
  );
  for (const row of rows) {
    assert.equal(row.request_id, response.headers['x-request-id'], context);
    assert.equal(
      new Date(row.occurred_at).getTime(),
      h.clock.now().getTime(),
      `${context}: stamped with the injected clock`,
    );
  }
}

/** A client's request, as expected in a row. */
export function byClient(client: { id: string; platform: string } | null) {
  return { actor: 'client', client_id: client?.id ?? null, platform: client?.platform ?? null };
}

/**
 * How many refusals of unidentified callers (`type`, `reason`) from `sourceIp` the audit log
 * holds, summed over its aggregated rows, after writing the minute counted so far.
 */
async function refusalCount(h: Harness, type: string, reason: string, sourceIp = '127.0.0.1'): Promise<number> {
  await h.services.audit.drain();
  const [row] = await h.services.database.query<{ total: string | null }>(
    'select sum(count)::text as total from audit_log where event_type = $1 and reason = $2 and source_ip = $3',
    [type, reason, sourceIp],
  );
  return Number(row?.total ?? 0);
}

/** Asserts that `response`'s refusal wrote no row of its own and was counted in an aggregated row. */
export async function assertAggregated(
  h: Harness,
  send: () => Promise<LightMyRequestResponse>,
  type: string,
  reason: string,
  why = '',
): Promise<LightMyRequestResponse> {
  const before = await refusalCount(h, type, reason);
  const response = await send();
  assert.deepEqual(await rowsOf(h, response), [], `${why}: no row of its own`);
  assert.equal(await refusalCount(h, type, reason), before + 1, `${why}: counted in an aggregated row`);
  return response;
}
