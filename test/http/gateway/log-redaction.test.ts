/**
 * Nothing secret or personal reaches the logs (docs/behaviour.md#never-stored): a full
 * walk-through — token, refresh, registration by demographics, accounts, a
 * renewal, a rejected session, failing registrations, a 409, a core outage —
 * logged at `trace` through the production logger (its redaction included), and
 * the captured text holds no SSN, account number, birth date, client secret,
 * access or refresh token, nor any delegate reference ID the core issued.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { createLogger } from '../../../src/adapters/logging/logger.js';
import { BACKENDS } from '../../support/backends.js';
import { assertLogLines } from '../../support/log-lines.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import {
  ADA,
  assertError,
  assertSuccess,
  BAD_GATEWAY,
  BOB,
  CONFLICT,
  FollowingClock,
  formA,
  formB,
  getAccounts,
  NOT_AUTHENTICATED,
  postSession,
  RecordingCore,
  uniqueId,
  usDate,
} from './gateway-requests.js';

const TTL_SECONDS = 300;

for (const backend of BACKENDS) {
  describe(`logs hold no secrets and no personal data (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    const lines: string[] = [];
    const clock = new FollowingClock();
    const simulator = new CoreSimulator({ clock, sessionTtlSeconds: TTL_SECONDS });
    const core = new RecordingCore(new InProcessCoreConnector(simulator, { timeoutMs: 200 }));
    before(async () => {
      const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
      h = await createHarness(backend, { core, logger, env: { LOG_LEVEL: 'trace' } });
      clock.target = h.clock;
    });
    after(() => h?.close());

    it('after a full walk-through', async () => {
      const secrets = new Map<string, string>();
      const keep = (what: string, value: string | undefined) => {
        assert.ok(value, `${what} was produced`);
        secrets.set(value, what);
      };

      // Token, and a refresh token rotated once.
      const linesAtStart = lines.length;
      const client = await h.client({ platform: 'log-check', grants: ['refresh_token'] });
      keep('client secret', client.secret);
      keep('Basic credentials', basic(client.id, client.secret).slice('Basic '.length));
      const tokenRequest = (body: string) =>
        h.app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: {
            authorization: basic(client.id, client.secret),
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: body,
        });
      const issued = (await tokenRequest('grant_type=client_credentials&scope=core%2Fmain')).json<{
        access_token: string;
        refresh_token: string;
      }>();
      keep('access token', issued.access_token);
      keep('refresh token', issued.refresh_token);
      const refreshed = (
        await tokenRequest(`grant_type=refresh_token&refresh_token=${encodeURIComponent(issued.refresh_token)}`)
      ).json<{
        access_token: string;
        refresh_token: string;
      }>();
      keep('refreshed access token', refreshed.access_token);
      keep('rotated refresh token', refreshed.refresh_token);
      assert.equal(
        (await tokenRequest(`grant_type=refresh_token&refresh_token=${encodeURIComponent(issued.refresh_token)}`))
          .statusCode,
        400,
        'replayed',
      );
      const token = refreshed.access_token;

      // Personal data, in every spelling it was sent in.
      for (const customer of [ADA, BOB]) {
        keep('SSN with dashes', customer.socialSecurityNumber);
        keep('SSN digits', customer.socialSecurityNumber.replaceAll('-', ''));
        keep('account number', customer.accountNumber);
        keep('birth date ISO', customer.birthDay);
        keep('birth date US', usDate(customer.birthDay));
      }
      const unknownPerson = { ...ADA, socialSecurityNumber: '321-54-9876', birthDay: '1979-12-31' };
      keep('unknown SSN', '321-54-9876');
      keep('unknown SSN digits', '321549876');
      keep('unknown birth date', '1979-12-31');
      keep('unknown birth date US', '12/31/1979');

      const customerId = uniqueId('logged');
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA, { birthDay: 'us' })));
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA, { ssn: 'digits' })));
      assertSuccess(await getAccounts(h, { token }, customerId));
      // Renewal after expiry, and after the core rejected the session.
      h.clock.advance(TTL_SECONDS + 1);
      assertSuccess(await getAccounts(h, { token }, customerId));
      simulator.expireAll();
      assertSuccess(await getAccounts(h, { token }, customerId));
      // Failing registrations: malformed, unknown to the core, another customer under the same id.
      const malformed = await postSession(
        h,
        { token },
        {
          demographics: { ...formA('x', ADA).demographics, socialSecurityNumber: '123-45-67890' },
          registration: { customerId: uniqueId('bad') },
        },
      );
      assertError(malformed, { status: 400, name: 'BadRequest', className: 'bad-request' });
      keep('malformed SSN', '123-45-67890');
      assertError(
        await postSession(h, { token }, formA(uniqueId('unknown'), unknownPerson, { birthDay: 'us' })),
        NOT_AUTHENTICATED,
      );
      assertError(await postSession(h, { token }, formA(customerId, BOB)), CONFLICT);
      assertError(await postSession(h, { token }, formB(customerId, BOB.customerKey)), CONFLICT);
      // A core outage, during a call and during a renewal.
      simulator.setFaults({ errorRate: 1, errorStatus: 500 });
      assertError(await getAccounts(h, { token }, customerId), BAD_GATEWAY);
      h.clock.advance(TTL_SECONDS + 1);
      assertError(await getAccounts(h, { token }, customerId), BAD_GATEWAY);
      // A core that answers long after the connector's deadline (200 ms), however loaded the machine.
      simulator.setFaults({ latencyMs: 60_000 });
      assertError(await postSession(h, { token }, formA(uniqueId('slow'), BOB)), BAD_GATEWAY);
      simulator.setFaults({});
      assertSuccess(await getAccounts(h, { token }, customerId));
      // Tokens presented where they do not belong.
      assertError(await getAccounts(h, { token: issued.refresh_token }, customerId), NOT_AUTHENTICATED);
      assertError(
        await getAccounts(h, { authorization: `Basic ${basic(client.id, client.secret).slice(6)}` }, customerId),
        NOT_AUTHENTICATED,
      );

      assert.ok(core.issued.length >= 4, `${core.issued.length} delegate reference IDs issued`);
      core.issued.forEach((id, index) => keep(`delegate reference ID #${index}`, id));

      // Every line one JSON object with each key once; every line after the start, the request's id.
      assertLogLines(lines.slice(linesAtStart), () => true);
      assertLogLines(lines.slice(0, linesAtStart), () => false);
      const log = lines.join('');
      assert.ok(lines.length >= 20, `the walk-through was logged (${lines.length} lines)`);
      assert.match(log, /customer registered/, 'the registrations were logged');
      assert.match(log, /"level":(10|20|30)/);
      assert.match(log, /request refused/, 'the refusals were logged');
      for (const [value, what] of secrets) {
        assert.equal(log.includes(value), false, `the log contains the ${what}`);
      }
    });
  });
}
