/**
 * `GET /core/sessions?customerId=` and `DELETE /core/sessions?customerId=`
 * (docs/behaviour.md#customer-lifecycle), one test per status, on PGlite and PostgreSQL: the
 * state of a customer, deregistration (association gone, core session ended, webhook event
 * recorded in the same transaction), tenancy (the same 404 byte for byte), audit rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { CoreUnavailable } from '../../../src/ports/core-connector.js';
import {
  ADA,
  assertBadRequest,
  assertError,
  assertSuccess,
  associationCount,
  BOB,
  EVE,
  formA,
  formB,
  getAccounts,
  NOT_AUTHENTICATED,
  NOT_FOUND,
  postSession,
  RecordingCore,
  uniqueId,
} from './gateway-requests.js';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { adminOperations, executeAdminOperation } from '../../../src/server/admin-operations.js';

function customerRequest(
  h: Harness,
  method: 'GET' | 'DELETE',
  token: string | undefined,
  customerId?: string,
): Promise<LightMyRequestResponse> {
  const query = customerId === undefined ? '' : `?customerId=${encodeURIComponent(customerId)}`;
  return h.app.inject({
    method,
    url: `/core/sessions${query}`,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
}

/** A core whose `endSession` can be made to fail as if the core were down. */
class EndableCore extends RecordingCore {
  readonly ended: string[] = [];
  endDown = false;
  async endSession(delegateReferenceId: string, context: { requestId: string }): Promise<void> {
    this.ended.push(delegateReferenceId);
    if (this.endDown) throw new CoreUnavailable('cannot connect to the core (ECONNREFUSED)', true);
    await this.inner.endSession!(delegateReferenceId, context);
  }
}

for (const backend of BACKENDS) {
  describe(`GET and DELETE /core/sessions (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let core: EndableCore;
    let simulator: CoreSimulator;
    let tokenA: string;
    let tokenB: string;
    before(async () => {
      simulator = new CoreSimulator();
      core = new EndableCore(new InProcessCoreConnector(simulator));
      h = await createHarness(backend, { core });
      tokenA = await h.token(await h.client({ platform: 'life-a' }));
      tokenB = await h.token(await h.client({ platform: 'life-b' }));
      // The outbox records an event only for a platform with a receiver that wants it.
      await executeAdminOperation(adminOperations(h.services), 'webhooks.add', {
        platform: 'life-a',
        url: 'http://127.0.0.1:9/hooks',
      });
    });
    after(() => h?.close());

    it('GET 200: the state, never a delegate reference ID or an expiry', async () => {
      const customerId = uniqueId('read');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      const response = await customerRequest(h, 'GET', tokenA, customerId);
      const data = assertSuccess<Record<string, unknown>>(response);
      assert.deepEqual(Object.keys(data).sort(), ['customerId', 'customerKey', 'registeredAt', 'status', 'updatedAt']);
      assert.equal(data['customerId'], customerId);
      assert.equal(data['customerKey'], ADA.customerKey);
      assert.equal(data['status'], 'active');
      assert.equal(data['registeredAt'], h.clock.now().toISOString());
      for (const issued of core.issued) assert.ok(!response.body.includes(issued), 'no delegate reference ID');
    });

    it('GET 200 says reregistration_required once the core forgot the customer', async () => {
      const customerId = uniqueId('forgotten');
      // EVE is forgotten for good in this suite's simulator: no other test registers her.
      assertSuccess(await postSession(h, { token: tokenA }, formB(customerId, EVE.customerKey)));
      simulator.forgetCustomer(EVE.customerKey);
      core.issued.length = 0;
      {
        assertError(await getAccounts(h, { token: tokenA }, customerId), NOT_AUTHENTICATED);
        const data = assertSuccess<{ status: string }>(await customerRequest(h, 'GET', tokenA, customerId));
        assert.equal(data.status, 'reregistration_required');
        const events = await h.services.database.query<{ type: string; payload: string }>(
          `select type, payload from webhook_events where platform = 'life-a' and type = 'customer.reregistration_required'`,
        );
        assert.equal(events.length, 1, 'one event recorded with the mark');
        assert.deepEqual(JSON.parse(events[0]!.payload).data, {
          institution: 'default',
          platform: 'life-a',
          customerId,
        });
      }
      assertError(
        await postSession(h, { token: tokenA }, formB(uniqueId('again'), EVE.customerKey)),
        NOT_AUTHENTICATED,
        'new sessions refused as unknown',
      );
    });

    it('GET and DELETE 400 without a valid customerId', async () => {
      for (const method of ['GET', 'DELETE'] as const) {
        assertBadRequest(await customerRequest(h, method, tokenA), ['/customerId'], `${method} without customerId`);
        assertBadRequest(
          await customerRequest(h, method, tokenA, 'has space'),
          ['/customerId'],
          `${method} with a bad customerId`,
        );
      }
    });

    it('GET and DELETE 401 without a token', async () => {
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await customerRequest(h, method, undefined, 'x');
        assertError(response, NOT_AUTHENTICATED, method);
        assert.equal(response.headers['www-authenticate'], 'Bearer');
      }
    });

    it('GET and DELETE 403 outside the client’s IP allow-list', async () => {
      const token = await h.token(await h.client({ platform: 'life-a', allowedIps: ['10.9.9.0/24'] }));
      for (const method of ['GET', 'DELETE'] as const) {
        assertError(
          await customerRequest(h, method, token, 'x'),
          { status: 403, name: 'Forbidden', className: 'forbidden' },
          method,
        );
      }
    });

    it('GET and DELETE 404: another platform’s customer answers byte for byte as an unknown one, and stays registered', async () => {
      const customerId = uniqueId('foreign');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      for (const method of ['GET', 'DELETE'] as const) {
        const foreign = await customerRequest(h, method, tokenB, customerId);
        const unknown = await customerRequest(h, method, tokenB, uniqueId('nobody'));
        assertError(foreign, NOT_FOUND, method);
        // Equal but for each answer's own request id (data.requestId, a UUID of fixed length).
        const withoutRequestId = (body: string) => body.replace(/"requestId":"[^"]*"/, '"requestId":"-"');
        assert.equal(withoutRequestId(foreign.body), withoutRequestId(unknown.body), `${method}: no existence leak`);
        assert.equal(foreign.headers['content-length'], unknown.headers['content-length']);
      }
      assertSuccess(await customerRequest(h, 'GET', tokenA, customerId), 'still registered for its platform');
    });

    it('DELETE 200: the association is gone, the core session ended, customer.deregistered recorded, a new registration starts afresh', async () => {
      const customerId = uniqueId('leaver');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      const delegate = core.issued.at(-1)!;
      const before = await associationCount(h, 'life-a');
      assert.deepEqual(assertSuccess(await customerRequest(h, 'DELETE', tokenA, customerId)), { customerId });
      assert.equal(await associationCount(h, 'life-a'), before - 1);
      assert.deepEqual(core.ended.at(-1), delegate, 'the core was asked to end the session');
      assert.throws(() => simulator.listAccounts(delegate), /unknown or expired/, 'the simulator ended it');
      assertError(await getAccounts(h, { token: tokenA }, customerId), NOT_FOUND);
      assertError(await customerRequest(h, 'GET', tokenA, customerId), NOT_FOUND);
      assertError(await customerRequest(h, 'DELETE', tokenA, customerId), NOT_FOUND, 'a second DELETE');
      const events = await h.services.database.query<{ payload: string }>(
        `select payload from webhook_events where type = 'customer.deregistered' and payload like $1`,
        [`%"${customerId}"%`],
      );
      assert.equal(events.length, 1);
      const body = JSON.parse(events[0]!.payload);
      assert.deepEqual(Object.keys(body).sort(), ['data', 'timestamp', 'type']);
      assert.deepEqual(body.data, {
        institution: 'default',
        platform: 'life-a',
        customerId,
        reason: 'platform_request',
      });
      assertSuccess(
        await postSession(h, { token: tokenA }, formB(customerId, BOB.customerKey)),
        'afresh, even for another core customer',
      );
      const registered = await h.services.database.query(
        `select 1 from webhook_events where type = 'customer.registered' and payload like $1`,
        [`%"${customerId}"%`],
      );
      assert.equal(registered.length, 2, 'each creation recorded once');
    });

    it('DELETE 200 even when the core is down: the association is removed all the same', async () => {
      const customerId = uniqueId('core-down');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      core.endDown = true;
      try {
        assertSuccess(await customerRequest(h, 'DELETE', tokenA, customerId));
      } finally {
        core.endDown = false;
      }
      assertError(await customerRequest(h, 'GET', tokenA, customerId), NOT_FOUND);
    });

    it('records an idempotent repeat of a registration as no new event', async () => {
      const customerId = uniqueId('repeat');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      const rows = await h.services.database.query(
        `select 1 from webhook_events where type = 'customer.registered' and payload like $1`,
        [`%"${customerId}"%`],
      );
      assert.equal(rows.length, 1);
    });

    it('sessions revoke (operator) records customer.deregistered with reason operator_revoked and ends the core session', async () => {
      const customerId = uniqueId('revoked');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      const delegate = core.issued.at(-1)!;
      await h.services.associationAdmin.revoke('life-a', customerId);
      assert.equal(core.ended.at(-1), delegate);
      assert.throws(() => simulator.listAccounts(delegate), /unknown or expired/);
      const events = await h.services.database.query<{ payload: string }>(
        `select payload from webhook_events where type = 'customer.deregistered' and payload like $1`,
        [`%"${customerId}"%`],
      );
      assert.deepEqual(JSON.parse(events[0]!.payload).data, {
        institution: 'default',
        platform: 'life-a',
        customerId,
        reason: 'operator_revoked',
      });
    });

    it('writes audit rows session.read and session.deregistered', async () => {
      const customerId = uniqueId('audited');
      assertSuccess(await postSession(h, { token: tokenA }, formA(customerId, ADA)));
      assertSuccess(await customerRequest(h, 'GET', tokenA, customerId));
      assertSuccess(await customerRequest(h, 'DELETE', tokenA, customerId));
      assertError(await customerRequest(h, 'GET', tokenA, customerId), NOT_FOUND);
      await h.services.audit.drain();
      const rows = await h.services.database.query<{ event_type: string; outcome: string; reason: string | null }>(
        'select event_type, outcome, reason from audit_log where customer_id = $1 order by id',
        [customerId],
      );
      assert.deepEqual(
        rows.map((row) => [row.event_type, row.outcome, row.reason]),
        [
          ['session.registered', 'success', null],
          ['session.read', 'success', null],
          ['session.deregistered', 'success', null],
          ['session.read', 'failure', 'customer_not_registered'],
        ],
      );
    });
  });
}
