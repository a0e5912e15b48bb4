/**
 * The audit row of a change is committed with the change (docs/operations.md#audit-log): a
 * registration or a deregistration writes its `session.registered` / `session.deregistered`
 * row in the same transaction as the association and its webhook event, exactly once, and an
 * audit insert that fails rolls the change back: both exist, or neither.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { adminOperations, executeAdminOperation } from '../../../src/server/admin-operations.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ADA, assertSuccess, associationRow, formA, postSession, uniqueId } from '../gateway/gateway-requests.js';
import type { AuditRow } from './audit-rows.js';

const PLATFORM = 'audit-change';

/** A stored row with its institution (every column the change's row sets). */
type Row = Omit<AuditRow, 'id'> & { readonly institution: string | null };

/** The success row of a platform's change, as the request `response` should have written it. */
function successRow(
  type: string,
  clientId: string,
  customerId: string,
  response: LightMyRequestResponse,
): Omit<Row, 'occurred_at'> {
  return {
    event_type: type,
    outcome: 'success',
    reason: null,
    actor: 'client',
    client_id: clientId,
    platform: PLATFORM,
    institution: 'default',
    customer_id: customerId,
    request_id: response.headers['x-request-id'] as string,
  };
}

async function rowsFor(h: Harness, customerId: string): Promise<Row[]> {
  await h.services.audit.drain();
  return h.services.database.query<Row>(
    'select event_type, outcome, reason, actor, client_id, platform, institution, customer_id, request_id, occurred_at from audit_log where customer_id = $1 order by id',
    [customerId],
  );
}

async function webhookEvents(h: Harness, type: string, customerId: string): Promise<number> {
  const rows = await h.services.database.query('select 1 from webhook_events where type = $1 and payload like $2', [
    type,
    `%"${customerId}"%`,
  ]);
  return rows.length;
}

function deregister(h: Harness, token: string, customerId: string): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: 'DELETE',
    url: `/core/sessions?customerId=${encodeURIComponent(customerId)}`,
    headers: { authorization: `Bearer ${token}` },
  });
}

for (const backend of BACKENDS) {
  describe(`audit rows committed with their change (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let clientId: string;
    let token: string;
    before(async () => {
      h = await createHarness(backend);
      const client = await h.client({ platform: PLATFORM });
      clientId = client.id;
      token = await h.token(client);
      await executeAdminOperation(adminOperations(h.services), 'webhooks.add', {
        platform: PLATFORM,
        url: 'http://127.0.0.1:9/hooks',
      });
      // Refuses the audit row of a change to a customerId named after it ("doomed-registered-…",
      // "doomed-deregistered-…"), as a full disk or a lost connection would.
      await h.services.database.query(`create function refuse_doomed_audit() returns trigger language plpgsql as $$
        begin
          if new.customer_id like 'doomed-' || split_part(new.event_type, '.', 2) || '-%' then raise exception 'audit row refused'; end if;
          return new;
        end $$`);
      await h.services.database.query(
        'create trigger refuse_doomed_audit before insert on audit_log for each row execute function refuse_doomed_audit()',
      );
    });
    after(() => h?.close());

    it('a registration writes exactly one session.registered row, with the association', async () => {
      const customerId = uniqueId('committed');
      const response = await postSession(h, { token }, formA(customerId, ADA));
      assertSuccess(response);
      const rows = await rowsFor(h, customerId);
      assert.equal(rows.length, 1, JSON.stringify(rows));
      const { occurred_at: occurredAt, ...row } = rows[0]!;
      assert.deepEqual(row, successRow('session.registered', clientId, customerId, response));
      assert.equal(new Date(occurredAt).getTime(), h.clock.now().getTime());
      assert.ok(await associationRow(h, PLATFORM, customerId));
      assert.equal(await webhookEvents(h, 'customer.registered', customerId), 1);
    });

    it('a deregistration writes exactly one session.deregistered row, with the deletion', async () => {
      const customerId = uniqueId('gone');
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      const response = await deregister(h, token, customerId);
      assertSuccess(response);
      const rows = (await rowsFor(h, customerId)).filter((row) => row.event_type === 'session.deregistered');
      assert.deepEqual(
        rows.map(({ occurred_at: _at, ...row }) => row),
        [successRow('session.deregistered', clientId, customerId, response)],
      );
    });

    it('a registration whose audit row cannot be written is not committed, nor is its webhook event', async () => {
      const customerId = uniqueId('doomed-registered');
      const response = await postSession(h, { token }, formA(customerId, ADA));
      assert.ok(response.statusCode >= 500, `${response.statusCode} ${response.body}`);
      assert.equal(await associationRow(h, PLATFORM, customerId), undefined, 'no association without its audit row');
      assert.equal(await webhookEvents(h, 'customer.registered', customerId), 0, 'no webhook event either');
    });

    it('a deregistration whose audit row cannot be written leaves the association in place', async () => {
      const customerId = uniqueId('doomed-deregistered');
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      const response = await deregister(h, token, customerId);
      assert.ok(response.statusCode >= 500, `${response.statusCode} ${response.body}`);
      assert.ok(
        await associationRow(h, PLATFORM, customerId),
        'the association stays without the audit row of its deletion',
      );
      assert.equal(await webhookEvents(h, 'customer.deregistered', customerId), 0, 'no webhook event either');
    });
  });
}
