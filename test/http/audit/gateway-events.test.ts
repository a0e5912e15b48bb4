/**
 * The gateway in the audit log (docs/behaviour.md#audit-log): `session.registered` and
 * `accounts.listed` for every request that passed the bearer check, with their
 * outcome and reason; `session.renewed` and `session.reregistration_required`
 * when coregate renews (or cannot renew) a core session during a request, named
 * after the client whose request it was; `access.denied` for every refusal of the
 * bearer check, with the reason, naming the client only once its token verified.
 */
import { after, before, describe, it } from 'node:test';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, protectedTestRoute, type Harness } from '../../support/harness.js';
import { getProtected } from '../bearer/bearer-responses.js';
import {
  ADA,
  assertError,
  assertSuccess,
  BAD_REQUEST,
  BOB,
  CONFLICT,
  FollowingClock,
  ForgetfulDirectory,
  formA,
  formB,
  getAccounts,
  NOT_AUTHENTICATED,
  NOT_FOUND,
  postSession,
  uniqueId,
} from '../gateway/gateway-requests.js';
import { assertAggregated, assertAudited, byClient } from './audit-rows.js';

const TTL_SECONDS = 300;
const SKEW_SECONDS = 30;

interface Who {
  readonly id: string;
  readonly platform: string;
}

const registered = (who: Who, customerId: string | null, reason: string | null = null) => ({
  event_type: 'session.registered',
  outcome: reason === null ? 'success' : 'failure',
  reason,
  ...byClient(who),
  customer_id: customerId,
});
const listed = (who: Who, customerId: string | null, reason: string | null = null) => ({
  event_type: 'accounts.listed',
  outcome: reason === null ? 'success' : 'failure',
  reason,
  ...byClient(who),
  customer_id: customerId,
});
const accessDenied = (reason: string, who: Who | null) => ({
  event_type: 'access.denied',
  outcome: 'failure',
  reason,
  ...byClient(who),
  customer_id: null,
});

for (const backend of BACKENDS) {
  describe(`gateway audit events (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let who: Who;
    let token: string;
    const clock = new FollowingClock();
    const directory = new ForgetfulDirectory();
    const simulator = new CoreSimulator({ clock, customers: directory, sessionTtlSeconds: TTL_SECONDS });
    before(async () => {
      h = await createHarness(backend, {
        core: new InProcessCoreConnector(simulator),
        env: { COREGATE_SESSION_SKEW_SECONDS: String(SKEW_SECONDS) },
        // A route needing a scope no client holds, for insufficient_scope.
        routes: async (app, services) => {
          await app.register(async (scoped) => protectedTestRoute('other/scope')(scoped, services), {
            prefix: '/other',
          });
        },
      });
      clock.target = h.clock;
      const client = await h.client({ platform: 'audit-gateway' });
      who = { id: client.id, platform: client.platform };
      token = await h.token(client);
    });
    after(() => h?.close());

    it('records session.registered with its outcome and reason', async () => {
      const customerId = uniqueId('reg');
      const ok = await postSession(h, { token }, formA(customerId));
      assertSuccess(ok);
      await assertAudited(h, ok, [registered(who, customerId)], 'new registration');

      const again = await postSession(h, { token }, formB(customerId, ADA.customerKey));
      assertSuccess(again);
      await assertAudited(h, again, [registered(who, customerId)], 'idempotent registration');

      const conflict = await postSession(h, { token }, formA(customerId, BOB));
      assertError(conflict, CONFLICT);
      await assertAudited(h, conflict, [registered(who, customerId, 'customer_id_taken')], 'conflict');

      const unknownId = uniqueId('reg-unknown');
      const unknown = await postSession(h, { token }, formB(unknownId, 'C-404'));
      assertError(unknown, NOT_AUTHENTICATED);
      await assertAudited(
        h,
        unknown,
        [registered(who, unknownId, 'customer_not_recognised')],
        'customer unknown to the core',
      );

      const invalidId = uniqueId('reg-invalid');
      const invalid = await postSession(h, { token }, { registration: { customerId: invalidId } });
      assertError(invalid, BAD_REQUEST);
      await assertAudited(
        h,
        invalid,
        [registered(who, invalidId, 'invalid_request')],
        'invalid body with a valid customerId',
      );

      const junk = await postSession(
        h,
        { token },
        { registration: { customerId: 'not a customer id' }, customer: { customerKey: 'C-1001' } },
      );
      assertError(junk, BAD_REQUEST);
      await assertAudited(
        h,
        junk,
        [registered(who, null, 'invalid_request')],
        'a customerId that is not one is not stored',
      );

      const notJson = await postSession(h, { token }, '{"registration":');
      assertError(notJson, BAD_REQUEST);
      await assertAudited(h, notJson, [registered(who, null, 'invalid_request')], 'a body that is not JSON');
    });

    it('records accounts.listed with its outcome and reason', async () => {
      const customerId = uniqueId('acc');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      const ok = await getAccounts(h, { token }, customerId);
      assertSuccess(ok);
      await assertAudited(h, ok, [listed(who, customerId)], 'accounts listed');

      const unknownId = uniqueId('acc-unknown');
      const notFound = await getAccounts(h, { token }, unknownId);
      assertError(notFound, NOT_FOUND);
      await assertAudited(h, notFound, [listed(who, unknownId, 'customer_not_registered')], 'unknown customerId');

      const missing = await getAccounts(h, { token });
      assertError(missing, BAD_REQUEST);
      await assertAudited(h, missing, [listed(who, null, 'invalid_request')], 'no customerId');
    });

    it('records session.renewed, named after the client whose request renewed it, before its accounts.listed', async () => {
      const customerId = uniqueId('renew');
      assertSuccess(await postSession(h, { token }, formB(customerId, BOB.customerKey)));
      h.clock.advance(TTL_SECONDS - SKEW_SECONDS);
      const renewed = await getAccounts(h, { token }, customerId);
      assertSuccess(renewed);
      await assertAudited(h, renewed, [
        { event_type: 'session.renewed', outcome: 'success', reason: null, ...byClient(who), customer_id: customerId },
        listed(who, customerId),
      ]);
      const next = await getAccounts(h, { token }, customerId);
      await assertAudited(h, next, [listed(who, customerId)], 'no renewal: nothing but the listing');
    });

    it('records session.reregistration_required once, and each refused listing after it', async () => {
      const customerId = uniqueId('rereg');
      const customer = { ...ADA, customerKey: 'C-1003' };
      assertSuccess(await postSession(h, { token }, formB(customerId, customer.customerKey)));
      directory.forgotten.add(customer.customerKey);
      try {
        h.clock.advance(TTL_SECONDS);
        const first = await getAccounts(h, { token }, customerId);
        assertError(first, NOT_AUTHENTICATED);
        await assertAudited(h, first, [
          {
            event_type: 'session.reregistration_required',
            outcome: 'failure',
            reason: 'customer_not_recognised',
            ...byClient(who),
            customer_id: customerId,
          },
          listed(who, customerId, 'reregistration_required'),
        ]);
        const second = await getAccounts(h, { token }, customerId);
        assertError(second, NOT_AUTHENTICATED);
        await assertAudited(
          h,
          second,
          [listed(who, customerId, 'reregistration_required')],
          'marked already: no second event',
        );
      } finally {
        directory.forgotten.delete(customer.customerKey);
      }
    });

    it('records access.denied for each refusal of the bearer check, never with the customerId asked for', async () => {
      const customerId = uniqueId('denied');
      // Callers nobody identified are counted per address and minute, not one row each.
      const noToken = await assertAggregated(
        h,
        () => getAccounts(h, {}, customerId),
        'access.denied',
        'missing_token',
        'no token',
      );
      assertError(noToken, NOT_AUTHENTICATED);

      const garbage = await assertAggregated(
        h,
        () => postSession(h, { token: 'abc.def.ghi' }, formA(customerId)),
        'access.denied',
        'invalid_token',
        'a token that is not ours',
      );
      assertError(garbage, NOT_AUTHENTICATED);

      await assertAggregated(
        h,
        () => getAccounts(h, { authorization: 'Bearer a b' }, customerId),
        'access.denied',
        'invalid_token',
        'a malformed bearer token',
      );

      const outsider = await h.client({ platform: 'audit-ip', allowedIps: ['10.1.0.0/16'] });
      const outsiderToken = await h.token(outsider);
      const fromElsewhere = await h.app.inject({
        method: 'GET',
        url: `/core/accounts?customerId=${customerId}`,
        headers: { authorization: `Bearer ${outsiderToken}` },
        remoteAddress: '192.0.2.1',
      });
      assertError(fromElsewhere, { status: 403, name: 'Forbidden', className: 'forbidden' });
      await assertAudited(h, fromElsewhere, [accessDenied('ip_not_whitelisted', outsider)], 'IP not whitelisted');

      const scoped = await getProtected(h, { token, url: '/other/test/protected' });
      assertError(scoped, { status: 403, name: 'Forbidden', className: 'forbidden' });
      await assertAudited(h, scoped, [accessDenied('insufficient_scope', who)], 'insufficient scope');

      const disabledClient = await h.client({ platform: 'audit-disabled' });
      const disabledToken = await h.token(disabledClient);
      await h.services.clientRegistry.setEnabled(disabledClient.id, false);
      // The client directory's cache (30 s by default) has to notice.
      h.clock.advance(31);
      const disabled = await getAccounts(h, { token: disabledToken }, customerId);
      assertError(disabled, NOT_AUTHENTICATED);
      await assertAudited(h, disabled, [accessDenied('client_disabled', disabledClient)], 'disabled client');
    });
  });
}
