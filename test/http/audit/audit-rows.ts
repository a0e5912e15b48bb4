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

const SELECT = 'select id::text as id, occurred_at, event_type, outcome, reason, actor, client_id, platform, customer_id, request_id from audit_log';

/** Every row, in append order. */
export async function allAuditRows(h: Harness): Promise<AuditRow[]> {
  return h.services.database.query<AuditRow>(`${SELECT} order by id`);
}

/** The rows written for the request that got `response` (by its `X-Request-Id`), in append order. */
export async function rowsOf(h: Harness, response: LightMyRequestResponse): Promise<AuditRow[]> {
  const requestId = response.headers['x-request-id'];
  assert.equal(typeof requestId, 'string', 'every answer names its request id');
  return h.services.database.query<AuditRow>(`${SELECT} where request_id = $1 order by id`, [requestId]);
}

/**
 * Asserts the request wrote exactly `expected`, in order, each stamped with the
 * request's id and the harness clock's time.
 */
export async function assertAudited(h: Harness, response: LightMyRequestResponse, expected: readonly ExpectedRow[], why = ''): Promise<void> {
  const rows = await rowsOf(h, response);
  const context = `${why ? `${why}: ` : ''}${response.statusCode} ${response.body.slice(0, 300)}\nrows: ${JSON.stringify(rows)}`;
  assert.deepEqual(
    rows.map(({ id: _id, occurred_at: _at, request_id: _request, ...row }) => row),
    expected,
    context,
  );
  for (const row of rows) {
    assert.equal(row.request_id, response.headers['x-request-id'], context);
    assert.equal(new Date(row.occurred_at).getTime(), h.clock.now().getTime(), `${context}: stamped with the injected clock`);
  }
}

/** A client's request, as expected in a row. */
export function byClient(client: { id: string; platform: string } | null) {
  return { actor: 'client', client_id: client?.id ?? null, platform: client?.platform ?? null };
}
