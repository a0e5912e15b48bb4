/**
 * A core that is slow, failing or answering off-protocol (docs/behaviour.md#upstream-failures):
 * latency beyond COREGATE_CORE_TIMEOUT_MS → 502 BadGateway within about the
 * timeout; 5xx answers → 502; a 429 (the core sheds load) → 503 with
 * `Retry-After`; anything else unexpected → 502 and never a
 * renewal loop. Nothing is stored on a failed registration, a failed renewal
 * leaves the association usable, and once the faults are reset the same
 * requests succeed.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, afterEach, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertError,
  assertSuccess,
  associationCount,
  associationRow,
  BAD_GATEWAY,
  BOB,
  UNAVAILABLE,
  formA,
  formB,
  getAccounts,
  postSession,
  uniqueId,
  type ErrorEnvelope,
} from './gateway-requests.js';
import type { LightMyRequestResponse } from 'fastify';

/**
 * The core's deadline: far above the latency a call that must succeed meets (SLOW_BUT_IN_TIME_MS),
 * far below the latency of a core that is too slow (TOO_SLOW_MS), so a loaded machine's delays
 * move neither across it.
 */
const TIMEOUT_MS = 1_000;
const SLOW_BUT_IN_TIME_MS = 50;
const TOO_SLOW_MS = 60_000;
/** An answer this quick gave up at the deadline; one waiting for the core would take TOO_SLOW_MS. */
const GAVE_UP_WITHIN_MS = TOO_SLOW_MS / 4;
const TTL_SECONDS = 600;

for (const backend of BACKENDS) {
  // A renewal lease left behind would make the next call wait forever on the fake clock: fail instead of hanging.
  // It waits out real core timeouts: 15 s pinned to one core with another run on the other.
  describe(`core faults (${backend.name})`, { skip: backend.skip, timeout: 60_000 }, () => {
    let h: Harness;
    let token: string;
    let platform: string;
    let registered: string;
    let expected: string;
    before(async () => {
      h = await createHarness(backend, {
        env: {
          COREGATE_CORE_TIMEOUT_MS: String(TIMEOUT_MS),
          COREGATE_SIM_SESSION_TTL_SECONDS: String(TTL_SECONDS),
          // These tests fail the core many times in a row to see each 502; the circuit
          // breaker that would turn them into 503s has its own suite (test/http/ops/circuit-breaker.test.ts).
          COREGATE_CORE_BREAKER_FAILURES: '0',
        },
      });
      const client = await h.client({ platform: 'faults' });
      platform = client.platform;
      token = await h.token(client);
      registered = uniqueId('registered');
      assertSuccess(await postSession(h, { token }, formA(registered, BOB)));
      expected = (await getAccounts(h, { token }, registered)).body;
    });
    afterEach(() => {
      h.services.simulator!.setFaults({});
    });
    after(() => h?.close());

    async function timed(
      request: () => Promise<LightMyRequestResponse>,
    ): Promise<{ response: LightMyRequestResponse; ms: number }> {
      const started = performance.now();
      const response = await request();
      return { response, ms: performance.now() - started };
    }

    function assertBadGateway(response: LightMyRequestResponse, why: string): ErrorEnvelope {
      const body = assertError(response, BAD_GATEWAY, why);
      assert.deepEqual(
        { ...body.data, requestId: typeof body.data['requestId'] },
        { reason: 'core_failed', requestId: 'string' },
        `${why}: no details of the core's failure`,
      );
      assert.doesNotMatch(
        response.body,
        /core_failure|fault injected|no answer within|answered 5\d\d/,
        `${why}: the cause is logged, not sent`,
      );
      return body;
    }

    /** After the faults are reset, the same requests succeed: the service is healthy. */
    async function assertHealthy(): Promise<void> {
      h.services.simulator!.setFaults({});
      const customerId = uniqueId('healthy');
      assert.deepEqual(assertSuccess(await postSession(h, { token }, formB(customerId, BOB.customerKey))), {
        customerId,
        customerKey: BOB.customerKey,
      });
      assert.equal((await getAccounts(h, { token }, registered)).body, expected);
    }

    it('answers 502 within about the timeout when the core is slower than COREGATE_CORE_TIMEOUT_MS', async () => {
      const rows = await associationCount(h);
      h.services.simulator!.setFaults({ latencyMs: TOO_SLOW_MS });
      const registration = await timed(() => postSession(h, { token }, formA(uniqueId('slow'), BOB)));
      assertBadGateway(registration.response, 'registration');
      assert.ok(
        registration.ms >= TIMEOUT_MS * 0.9 && registration.ms < GAVE_UP_WITHIN_MS,
        `registration answered after ${registration.ms} ms`,
      );
      assert.equal(await associationCount(h), rows, 'nothing stored');

      const accounts = await timed(() => getAccounts(h, { token }, registered));
      assertBadGateway(accounts.response, 'accounts');
      assert.ok(
        accounts.ms >= TIMEOUT_MS * 0.9 && accounts.ms < GAVE_UP_WITHIN_MS,
        `accounts answered after ${accounts.ms} ms`,
      );
      await assertHealthy();
    });

    it('answers 200 when the core is slow but within the timeout', async () => {
      h.services.simulator!.setFaults({ latencyMs: SLOW_BUT_IN_TIME_MS });
      assertSuccess(await postSession(h, { token }, formA(uniqueId('a-bit-slow'), BOB)));
      assert.equal((await getAccounts(h, { token }, registered)).body, expected);
    });

    it('answers 502 to registration and accounts while the core answers 5xx', async () => {
      for (const errorStatus of [500, 502, 503, 504]) {
        h.services.simulator!.setFaults({ errorRate: 1, errorStatus });
        const rows = await associationCount(h);
        const sessions = h.services.simulator!.stats().sessionsStarted;
        assertBadGateway(
          await postSession(h, { token }, formA(uniqueId('failing'), BOB)),
          `registration, core ${errorStatus}`,
        );
        assertBadGateway(
          await postSession(h, { token }, formB(uniqueId('failing'), BOB.customerKey)),
          `registration by key, core ${errorStatus}`,
        );
        assertBadGateway(await getAccounts(h, { token }, registered), `accounts, core ${errorStatus}`);
        assert.equal(await associationCount(h), rows, 'nothing stored');
        assert.equal(h.services.simulator!.stats().sessionsStarted, sessions);
      }
      await assertHealthy();
    });

    it('answers 503 with Retry-After when the core answers 429: nothing stored, nothing started, no renewal', async () => {
      h.services.simulator!.setFaults({ errorRate: 1, errorStatus: 429 });
      const rows = await associationCount(h);
      const row = await associationRow(h, platform, registered);
      const sessions = h.services.simulator!.stats().sessionsStarted;
      for (const [what, response] of [
        ['registration', await postSession(h, { token }, formA(uniqueId('busy'), BOB))],
        ['registration by key', await postSession(h, { token }, formB(uniqueId('busy'), BOB.customerKey))],
        ['accounts', await getAccounts(h, { token }, registered)],
      ] as const) {
        const body = assertError(response, UNAVAILABLE, what);
        assert.equal(body.data.reason, 'unavailable', what);
        assert.equal(response.headers['retry-after'], '1', `${what}: the platform is told when to come back`);
        // The request id is random hex: it may hold the digits 429 by chance.
        const withoutRequestId = response.body.replace(String(body.data['requestId']), '');
        assert.doesNotMatch(
          withoutRequestId,
          /core_failure|fault injected|429/,
          `${what}: the cause is logged, not sent`,
        );
      }
      assert.equal(await associationCount(h), rows, 'nothing stored');
      assert.equal(h.services.simulator!.stats().sessionsStarted, sessions, 'no session started, none renewed');
      assert.deepEqual(await associationRow(h, platform, registered), row, 'the association is untouched');
      await assertHealthy();
    });

    it('answers 502 without renewing when the core answers 401 or 404 without the protocol’s error code', async () => {
      const row = await associationRow(h, platform, registered);
      for (const errorStatus of [401, 403, 404, 400]) {
        h.services.simulator!.setFaults({ errorRate: 1, errorStatus });
        const sessions = h.services.simulator!.stats().sessionsStarted;
        assertBadGateway(await getAccounts(h, { token }, registered), `accounts, core ${errorStatus}`);
        assertBadGateway(
          await postSession(h, { token }, formA(uniqueId('off-protocol'), BOB)),
          `registration, core ${errorStatus}`,
        );
        assert.equal(
          h.services.simulator!.stats().sessionsStarted,
          sessions,
          'not taken for a rejected session or an unknown customer',
        );
      }
      assert.deepEqual(await associationRow(h, platform, registered), row, 'the association is untouched');
      await assertHealthy();
    });

    it('answers 502 when a due renewal fails, leaving the association to be renewed by the next call', async () => {
      const customerId = uniqueId('renewal-fails');
      assertSuccess(await postSession(h, { token }, formA(customerId, BOB)));
      const row = (await associationRow(h, platform, customerId))!;
      h.clock.advance(TTL_SECONDS + 1);
      for (const faults of [{ errorRate: 1, errorStatus: 500 }, { latencyMs: TOO_SLOW_MS }]) {
        h.services.simulator!.setFaults(faults);
        assertBadGateway(await getAccounts(h, { token }, customerId), JSON.stringify(faults));
        assertBadGateway(
          await getAccounts(h, { token }, customerId),
          `${JSON.stringify(faults)}, again: the lease was given back`,
        );
        const after = (await associationRow(h, platform, customerId))!;
        assert.equal(after.version, row.version, 'nothing stored');
        assert.equal(after.needs_reregistration, false, 'an outage is not a forgotten customer');
      }
      h.services.simulator!.setFaults({});
      const sessions = h.services.simulator!.stats().sessionsStarted;
      assert.equal((await getAccounts(h, { token }, customerId)).body, expected);
      assert.equal(h.services.simulator!.stats().sessionsStarted, sessions + 1);
      assert.equal((await associationRow(h, platform, customerId))!.version, row.version + 1);
      // The other association registered before the clock moved renews on its own call too.
      assert.equal((await getAccounts(h, { token }, registered)).body, expected);
    });
  });
}
