/**
 * What fails around a core call is answered for what it is (docs/errors.md,
 * docs/behaviour.md#upstream-failures):
 * - the database failing while the institution's core is looked up → 503 with `Retry-After`,
 *   not 502 `core_failed`;
 * - a programming error there → the generic 500 envelope, logged once at error level as an
 *   unexpected error, never as an upstream failure;
 * - a stored delegate reference ID that cannot be opened → a new core session, as for one the
 *   core rejected (docs/behaviour.md#rejected-sessions), logged once without the value.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../../src/adapters/logging/logger.js';
import { DatabaseUnavailable } from '../../../src/ports/database-unavailable.js';
import type { CoreConnector } from '../../../src/ports/core-connector.js';
import { BACKENDS } from '../../support/backends.js';
import { assertLogLines } from '../../support/log-lines.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertError,
  assertSuccess,
  associationRow,
  formA,
  getAccounts,
  postSession,
  UNAVAILABLE,
  uniqueId,
} from './gateway-requests.js';

const GENERAL_ERROR = { status: 500, name: 'GeneralError', className: 'general-error' };

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly reqId?: string;
  readonly [key: string]: unknown;
}

for (const backend of BACKENDS) {
  describe(`failures around a core call (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    let platform: string;
    const lines: LogLine[] = [];
    /** The same lines as written, for the duplicate-key check. */
    const rawLines: string[] = [];
    /** When set, the next `coreFor` rejects with what it returns (once). */
    let nextLookupFailure: (() => Error) | undefined;

    before(async () => {
      const logger = createLogger('info', {
        write: (line: string) => {
          rawLines.push(line);
          lines.push(JSON.parse(line) as LogLine);
        },
      });
      h = await createHarness(backend, { logger, env: { LOG_LEVEL: 'info' } });
      const institutions = h.services.institutions;
      const coreFor = institutions.coreFor.bind(institutions);
      institutions.coreFor = (id, deadline): Promise<CoreConnector> => {
        const failure = nextLookupFailure;
        nextLookupFailure = undefined;
        return failure ? Promise.reject(failure()) : coreFor(id, deadline);
      };
      const client = await h.client({ platform: 'core-call-failures' });
      platform = client.platform;
      token = await h.token(client);
    });
    after(() => h?.close());

    const linesOf = (reqId: string) => lines.filter((line) => line.reqId === reqId);

    it('answers 503 with Retry-After when the database fails while the core is looked up', async () => {
      const customerId = uniqueId('db-lookup');
      nextLookupFailure = () => new DatabaseUnavailable('the database did not answer in time', 7);
      const registration = await postSession(h, { token }, formA(customerId));
      assertError(registration, UNAVAILABLE, 'registration');
      assert.equal(registration.headers['retry-after'], '7');

      assertSuccess(await postSession(h, { token }, formA(customerId)), 'registration once the database answers');
      nextLookupFailure = () => new DatabaseUnavailable('the database did not answer in time', 7);
      const accounts = await getAccounts(h, { token }, customerId);
      const envelope = assertError(accounts, UNAVAILABLE, 'accounts');
      assert.equal(accounts.headers['retry-after'], '7');
      assert.equal(envelope.data['reason'], 'unavailable');
    });

    it('answers a programming error as the generic 500, logged once as unexpected', async () => {
      const customerId = uniqueId('bug');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      nextLookupFailure = () => new TypeError("Cannot read properties of undefined (reading 'listAccounts')");
      const accounts = await getAccounts(h, { token }, customerId);
      const envelope = assertError(accounts, GENERAL_ERROR);
      assert.equal(envelope.message, 'internal error');
      assert.equal(envelope.data['reason'], 'internal_error');
      const logged = linesOf(String(accounts.headers['x-request-id']));
      const unexpected = logged.filter((line) => line.msg === 'unexpected error');
      assert.equal(unexpected.length, 1, JSON.stringify(logged));
      assert.equal(unexpected[0]!.level, 50, 'error level');
      assert.equal(
        logged.some((line) => line.msg === 'upstream failure'),
        false,
        'not an upstream failure',
      );
    });

    it('logs the core failing to end a deregistered customer’s session with the request id, each key once', async () => {
      const customerId = uniqueId('leaving');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      const before = lines.length;
      nextLookupFailure = () => new DatabaseUnavailable('the database did not answer in time', 7);
      const deregistered = await h.app.inject({
        method: 'DELETE',
        url: `/core/sessions?customerId=${customerId}`,
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(deregistered.statusCode, 200, deregistered.body);
      const said = assertLogLines(rawLines.slice(before), () => true).find((line) =>
        String(line['msg']).startsWith('the core did not end the session'),
      );
      assert.ok(said, 'logged');
      assert.equal(said['reqId'], deregistered.headers['x-request-id']);
    });

    it('renews a session whose stored delegate reference ID cannot be opened, and logs it once', async () => {
      const customerId = uniqueId('unreadable');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      const before = (await associationRow(h, platform, customerId))!;
      // A value sealed under a key this process does not hold (as after a key was removed too early).
      const [version, , ...rest] = before.delegate_sealed.split('.');
      await h.services.database.query(
        'update associations set delegate_sealed = $3 where platform = $1 and customer_id = $2',
        [platform, customerId, [version, 'gone', ...rest].join('.')],
      );
      // Past the association cache, within the session's life.
      h.clock.advance(60);
      const sessionsBefore = h.services.simulator!.stats().sessionsStarted;
      const [first, second] = await Promise.all([
        getAccounts(h, { token }, customerId),
        getAccounts(h, { token }, customerId),
      ]);
      assertSuccess(first, 'first reader');
      assertSuccess(second, 'concurrent reader');
      assert.equal(h.services.simulator!.stats().sessionsStarted, sessionsBefore + 1, 'one new core session');
      const after = (await associationRow(h, platform, customerId))!;
      assert.equal(after.version, before.version + 1);
      assert.ok(after.delegate_sealed.split('.')[1] !== 'gone', 'sealed again under a key held');
      const said = lines.filter((line) => line.msg.startsWith('a stored delegate reference ID could not be opened'));
      assert.equal(said.length, 1, 'logged once');
      assert.equal(said[0]!.level, 40, 'warn level');
      assert.ok([first, second].some((response) => response.headers['x-request-id'] === said[0]!.reqId));
      assert.ok(!JSON.stringify(said[0]).includes(before.delegate_sealed.split('.')[3]!), 'the value is not logged');
      assertSuccess(await getAccounts(h, { token }, customerId), 'and the renewed session serves');
      assert.equal(h.services.simulator!.stats().sessionsStarted, sessionsBefore + 1, 'without another session');
    });
  });
}
