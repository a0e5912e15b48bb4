/**
 * Transparent renewal of core sessions, end to end through HTTP with the
 * simulator's session lifetime and the fake clock (docs/behaviour.md#renewal):
 * - `now >= expiresAt - skew` starts exactly one new core session, not a second earlier;
 * - the platform gets the same answer with or without a renewal;
 * - the core rejecting an unexpired delegate reference ID → renew once, retry once;
 *   rejecting again → 502 after exactly one renewal;
 * - the core no longer knowing the customer key → 401 `reregistration_required`,
 *   answered from then on without calling the core, until a new registration.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { SessionRejected } from '../../../src/ports/core-connector.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  ADA,
  assertError,
  assertSuccess,
  associationRow,
  BAD_GATEWAY,
  demoCustomer,
  FollowingClock,
  ForgetfulDirectory,
  formA,
  formB,
  getAccounts,
  NOT_AUTHENTICATED,
  postSession,
  RecordingCore,
  uniqueId,
} from './gateway-requests.js';

const SKEW_SECONDS = 30;
const TTL_SECONDS = 300;

for (const backend of BACKENDS) {
  describe(`core session renewal with the built-in simulator (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    let platform: string;
    before(async () => {
      h = await createHarness(backend, {
        env: {
          COREGATE_SESSION_SKEW_SECONDS: String(SKEW_SECONDS),
          COREGATE_SIM_SESSION_TTL_SECONDS: String(TTL_SECONDS),
        },
      });
      const client = await h.client({ platform: 'renewal' });
      platform = client.platform;
      token = await h.token(client);
    });
    after(() => h?.close());

    const sessionsStarted = () => h.services.simulator!.stats().sessionsStarted;

    it('renews exactly once from the first instant of the skew window, and again after expiry, answering the same', async () => {
      const customerId = uniqueId('skew');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      const registeredAt = h.clock.now().getTime();
      const row0 = (await associationRow(h, platform, customerId))!;
      assert.equal(
        row0.expires_at.getTime(),
        registeredAt + TTL_SECONDS * 1000,
        'the simulator TTL from the environment',
      );
      const original = await getAccounts(h, { token }, customerId);
      assertSuccess(original);
      const started = sessionsStarted();

      // One second before the skew window: the stored session is used.
      h.clock.advance(TTL_SECONDS - SKEW_SECONDS - 1);
      assert.equal((await getAccounts(h, { token }, customerId)).body, original.body);
      assert.equal(sessionsStarted(), started, 'no new core session before the skew window');
      assert.equal((await associationRow(h, platform, customerId))!.version, row0.version);

      // Its first instant: one new session, stored, and the same answer.
      h.clock.advance(1);
      assert.equal((await getAccounts(h, { token }, customerId)).body, original.body, 'same answer with a renewal');
      assert.equal(sessionsStarted(), started + 1, 'exactly one new core session inside the skew window');
      const row1 = (await associationRow(h, platform, customerId))!;
      assert.equal(row1.version, row0.version + 1);
      assert.notEqual(row1.delegate_sealed, row0.delegate_sealed);
      assert.equal(
        row1.expires_at.getTime(),
        h.clock.now().getTime() + TTL_SECONDS * 1000,
        'the new expiration is stored',
      );
      assert.equal((await getAccounts(h, { token }, customerId)).body, original.body);
      assert.equal(sessionsStarted(), started + 1, 'the renewed session is used');

      // Past the new session's expiry.
      h.clock.advance(TTL_SECONDS + 1);
      assert.equal((await getAccounts(h, { token }, customerId)).body, original.body, 'same answer after expiry');
      assert.equal(sessionsStarted(), started + 2, 'exactly one new core session after expiry');
      assert.equal((await getAccounts(h, { token }, customerId)).body, original.body);
      assert.equal(sessionsStarted(), started + 2);

      // Long after: still one renewal per due call.
      h.clock.advance(30 * 24 * 3600);
      const client = await h.client({ platform });
      token = await h.token(client);
      assert.equal((await getAccounts(h, { token }, customerId)).body, original.body, 'same answer a month later');
      assert.equal(sessionsStarted(), started + 3);
    });

    it('renews once and retries once when the core rejects an unexpired delegate reference ID', async () => {
      const customerId = uniqueId('rejected');
      assertSuccess(await postSession(h, { token }, formB(customerId)));
      const original = (await getAccounts(h, { token }, customerId)).body;
      const row0 = (await associationRow(h, platform, customerId))!;
      const before = h.services.simulator!.stats();
      assert.ok(h.services.simulator!.expireAll() > 0, 'the core forgot every session');
      const response = await getAccounts(h, { token }, customerId);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.body, original, 'same answer after the rejection');
      const after = h.services.simulator!.stats();
      assert.equal(after.sessionsStarted, before.sessionsStarted + 1, 'renewed once');
      assert.equal(after.accountRequests, before.accountRequests + 2, 'the rejected call and one retry');
      assert.equal(
        (await associationRow(h, platform, customerId))!.version,
        row0.version + 1,
        'the new session is stored',
      );
      assertSuccess(await getAccounts(h, { token }, customerId));
      assert.equal(h.services.simulator!.stats().sessionsStarted, after.sessionsStarted, 'and used from then on');
    });

    it('renews an association only when it is used: other customers’ sessions are left alone', async () => {
      const used = uniqueId('used');
      const idle = uniqueId('idle');
      assertSuccess(await postSession(h, { token }, formA(used)));
      assertSuccess(await postSession(h, { token }, formA(idle)));
      const idleRow = (await associationRow(h, platform, idle))!;
      h.clock.advance(TTL_SECONDS + 1);
      const started = sessionsStarted();
      assertSuccess(await getAccounts(h, { token }, used));
      assert.equal(sessionsStarted(), started + 1);
      assert.deepEqual(await associationRow(h, platform, idle), idleRow, 'no renewal in the background');
    });
  });

  describe(`core session renewal when the core misbehaves (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    let platform: string;
    const clock = new FollowingClock();
    const directory = new ForgetfulDirectory();
    const simulator = new CoreSimulator({ clock, customers: directory, sessionTtlSeconds: TTL_SECONDS });
    const core = new RecordingCore(new InProcessCoreConnector(simulator));
    before(async () => {
      h = await createHarness(backend, { core, env: { COREGATE_SESSION_SKEW_SECONDS: String(SKEW_SECONDS) } });
      clock.target = h.clock;
      const client = await h.client({ platform: 'misbehaving' });
      platform = client.platform;
      token = await h.token(client);
    });
    after(() => h?.close());

    it('answers 502 after exactly one renewal when the core keeps rejecting the delegate reference ID', async () => {
      const customerId = uniqueId('always-rejected');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      const sessions = core.startSessionCalls.length;
      const listings = core.listAccountsCalls.length;
      core.failAccounts = () => new SessionRejected();
      try {
        const response = await getAccounts(h, { token }, customerId);
        const body = assertError(response, BAD_GATEWAY);
        assert.deepEqual(
          { ...body.data, requestId: typeof body.data['requestId'] },
          { reason: 'core_failed', requestId: 'string' },
        );
        assert.equal(core.startSessionCalls.length, sessions + 1, 'exactly one renewal');
        assert.equal(core.listAccountsCalls.length, listings + 2, 'the first call and one retry, no loop');
        assert.notEqual(
          core.listAccountsCalls.at(-1),
          core.listAccountsCalls.at(-2),
          'the retry used the new delegate reference ID',
        );
        assert.equal(core.listAccountsCalls.at(-1), core.issued.at(-1));
      } finally {
        core.failAccounts = undefined;
      }
      assertSuccess(await getAccounts(h, { token }, customerId), 'healthy again');
      assert.equal(core.startSessionCalls.length, sessions + 1, 'the renewed session was kept');
    });

    it('answers 401 reregistration_required once the core forgot the customer, without calling the core again, until a new registration', async () => {
      const customer = demoCustomer('C-1003');
      const customerId = uniqueId('forgotten');
      assertSuccess(await postSession(h, { token }, formA(customerId, customer)));
      const expected = (await getAccounts(h, { token }, customerId)).body;
      directory.forgotten.add(customer.customerKey);
      try {
        h.clock.advance(TTL_SECONDS + 1);
        const sessions = core.startSessionCalls.length;
        const response = await getAccounts(h, { token }, customerId);
        const body = assertError(response, NOT_AUTHENTICATED, 'after expiry');
        assert.equal(body.data.reason, 'reregistration_required');
        assert.equal(response.headers['www-authenticate'], undefined, 'about the core, not the caller’s token');
        assert.equal(core.startSessionCalls.length, sessions + 1, 'one renewal attempt');
        assert.deepEqual(
          core.startSessionCalls.at(-1),
          { kind: 'customerKey', customerKey: customer.customerKey },
          'renewals use the customer key',
        );
        assert.equal((await associationRow(h, platform, customerId))!.needs_reregistration, true);

        const calls = [core.startSessionCalls.length, core.listAccountsCalls.length];
        const stats = simulator.stats();
        for (let again = 0; again < 3; again += 1) {
          h.clock.advance(60);
          const repeated = await getAccounts(h, { token }, customerId);
          assert.equal(repeated.statusCode, 401);
          // The same answer but for its own request id (data.requestId).
          const withoutRequestId = (body: string) => body.replace(/"requestId":"[^"]*"/, '"requestId":"-"');
          assert.equal(withoutRequestId(repeated.body), withoutRequestId(response.body), 'the same answer');
        }
        assert.deepEqual(
          [core.startSessionCalls.length, core.listAccountsCalls.length],
          calls,
          'the core is not called again',
        );
        assert.equal(simulator.stats().sessionsStarted, stats.sessionsStarted);

        // Registering while the core still does not know the customer does not help.
        const refused = await postSession(h, { token }, formA(customerId, customer));
        assert.equal(assertError(refused, NOT_AUTHENTICATED).data.reason, 'customer_not_recognised');
        assert.equal((await getAccounts(h, { token }, customerId)).statusCode, 401);
      } finally {
        directory.forgotten.delete(customer.customerKey);
      }
      // The core knows the customer again: a new registration clears the mark.
      assertSuccess(await postSession(h, { token }, formA(customerId, customer, { birthDay: 'us' })));
      assert.equal((await associationRow(h, platform, customerId))!.needs_reregistration, false);
      const sessions = core.startSessionCalls.length;
      const again = await getAccounts(h, { token }, customerId);
      assertSuccess(again, 'after the new registration');
      assert.equal(again.body, expected);
      assert.equal(core.startSessionCalls.length, sessions, 'the registration’s session is used');
    });

    it('asks the core once when 50 parallel calls find the session expired and the customer forgotten', async () => {
      const customer = demoCustomer('C-1004');
      const customerId = uniqueId('forgotten-parallel');
      assertSuccess(await postSession(h, { token }, formA(customerId, customer)));
      directory.forgotten.add(customer.customerKey);
      try {
        h.clock.advance(TTL_SECONDS + 1);
        const sessions = core.startSessionCalls.length;
        const responses = await Promise.all(Array.from({ length: 50 }, () => getAccounts(h, { token }, customerId)));
        for (const response of responses)
          assert.equal(assertError(response, NOT_AUTHENTICATED).data.reason, 'reregistration_required');
        assert.equal(core.startSessionCalls.length, sessions + 1, 'one renewal attempt, not one per caller');
      } finally {
        directory.forgotten.delete(customer.customerKey);
      }
    });

    it('does not ask the core again for a call that read the association before it was marked', async () => {
      const customer = demoCustomer('C-1002');
      const customerId = uniqueId('marked-meanwhile');
      assertSuccess(await postSession(h, { token }, formA(customerId, customer)));
      directory.forgotten.add(customer.customerKey);
      simulator.expireAll();
      // Two calls read the association before either reaches the core; then the
      // first goes on alone, and the second one's core call waits until the first has answered.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let secondArrived!: () => void;
      const bothRead = new Promise<void>((resolve) => (secondArrived = resolve));
      const first = core.listAccountsCalls.length + 1;
      core.beforeListAccounts = async (call) => {
        if (call === first) await bothRead;
        if (call === first + 1) {
          secondArrived();
          await gate;
        }
      };
      try {
        const sessions = core.startSessionCalls.length;
        const calls = [getAccounts(h, { token }, customerId), getAccounts(h, { token }, customerId)];
        await Promise.race(calls);
        release();
        for (const response of await Promise.all(calls)) {
          assert.equal(assertError(response, NOT_AUTHENTICATED).data.reason, 'reregistration_required');
        }
        assert.equal(core.startSessionCalls.length, sessions + 1, 'the mark stops the second renewal attempt');
      } finally {
        core.beforeListAccounts = undefined;
        release();
        directory.forgotten.delete(customer.customerKey);
      }
    });

    it('answers 401 reregistration_required when the core rejects the session and no longer knows the customer', async () => {
      const customerId = uniqueId('rejected-and-forgotten');
      assertSuccess(await postSession(h, { token }, formB(customerId, ADA.customerKey)));
      const other = uniqueId('still-known');
      assertSuccess(await postSession(h, { token }, formB(other, 'C-1004')));
      directory.forgotten.add(ADA.customerKey);
      try {
        simulator.expireAll();
        const body = assertError(await getAccounts(h, { token }, customerId), NOT_AUTHENTICATED);
        assert.equal(body.data.reason, 'reregistration_required');
        // Another customer is not affected.
        assertSuccess(await getAccounts(h, { token }, other));
      } finally {
        directory.forgotten.delete(ADA.customerKey);
      }
      assertSuccess(await postSession(h, { token }, formB(customerId, ADA.customerKey)));
      assertSuccess(await getAccounts(h, { token }, customerId));
    });
  });
}
