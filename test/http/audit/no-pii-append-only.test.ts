/**
 * What the audit table must never hold and never allow (docs/behaviour.md#never-stored,
 * docs/behaviour.md#audit-log): after a walk-through touching every event type with
 * demographics, secrets and tokens, the whole table, serialised, contains no SSN, account
 * number, birth date, client secret, access or refresh token, nor any delegate reference ID
 * (clear or sealed); UPDATE, DELETE and TRUNCATE fail; and a failing audit write is logged at
 * error level without turning the answer into an error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InProcessCoreConnector } from '../../../src/adapters/core/in-process-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { createLogger } from '../../../src/adapters/logging/logger.js';
import { BACKENDS } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { assertIssued, postToken } from '../oauth/oauth-requests.js';
import {
  assertSuccess,
  BOB,
  FollowingClock,
  formA,
  formB,
  getAccounts,
  postSession,
  RecordingCore,
  uniqueId,
  usDate,
  ADA,
} from '../gateway/gateway-requests.js';
import { allAuditRows } from './audit-rows.js';

const TTL_SECONDS = 300;

for (const backend of BACKENDS) {
  describe(
    `the audit table holds no personal data or secrets and cannot be changed (${backend.name})`,
    { skip: backend.skip },
    () => {
      let h: Harness;
      const lines: string[] = [];
      const clock = new FollowingClock();
      const core = new RecordingCore(
        new InProcessCoreConnector(new CoreSimulator({ clock, sessionTtlSeconds: TTL_SECONDS })),
      );
      before(async () => {
        const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
        h = await createHarness(backend, { core, logger });
        clock.target = h.clock;
      });
      after(() => h?.close());

      it('holds none of the demographics, secrets, tokens or delegate reference IDs of a walk-through of every event', async () => {
        const secrets = new Map<string, string>();
        const keep = (what: string, value: string | undefined) => {
          assert.ok(value, `${what} was produced`);
          secrets.set(value, what);
        };
        for (const customer of [ADA, BOB]) {
          keep('SSN', customer.socialSecurityNumber);
          keep('SSN digits', customer.socialSecurityNumber.replaceAll('-', ''));
          keep('account number', customer.accountNumber);
          keep('birth date', customer.birthDay);
          keep('birth date (US)', usDate(customer.birthDay));
        }

        const client = await h.client({ platform: 'audit-pii', grants: ['refresh_token'] });
        keep('client secret', client.secret);
        keep('Basic credentials', basic(client.id, client.secret).slice('Basic '.length));
        const first = assertIssued(await postToken(h, { client, body: { grant_type: 'client_credentials' } }));
        keep('access token', first.access_token);
        keep('refresh token', first.refresh_token);
        const second = assertIssued(
          await postToken(h, { client, body: { grant_type: 'refresh_token', refresh_token: first.refresh_token! } }),
        );
        keep('refreshed access token', second.access_token);
        keep('rotated refresh token', second.refresh_token);
        const token = second.access_token;

        // Denials that carry secrets and junk in what the caller sent.
        await postToken(h, { client, body: { grant_type: 'client_credentials', client_secret: client.secret } });
        await postToken(h, { client, body: { grant_type: 'refresh_token', refresh_token: first.refresh_token! } });
        const junkId = `junk-${ADA.socialSecurityNumber}`;
        await postToken(h, {
          client: { id: junkId, secret: 'cgs_guessed-secret-value' },
          body: { grant_type: 'client_credentials' },
        });
        keep('guessed secret', 'cgs_guessed-secret-value');
        await getAccounts(h, { token: `${token}tampered` }, 'someone');
        keep('tampered token', `${token}tampered`);

        // Registrations by demographics (both spellings), by key, a failing one; accounts; a renewal.
        const ada = uniqueId('pii-ada');
        const bob = uniqueId('pii-bob');
        assertSuccess(await postSession(h, { token }, formA(ada, ADA)));
        assertSuccess(await postSession(h, { token }, formA(bob, BOB, { ssn: 'digits', birthDay: 'us' })));
        assertSuccess(await postSession(h, { token }, formB(uniqueId('pii-key'), 'C-1005')));
        await postSession(h, { token }, formA(ada, BOB));
        await postSession(
          h,
          { token },
          {
            demographics: { ...formA(ada).demographics, accountNumber: 'not valid!' },
            registration: { customerId: ada },
          },
        );
        assertSuccess(await getAccounts(h, { token }, ada));
        h.clock.advance(TTL_SECONDS);
        assertSuccess(await getAccounts(h, { token }, ada));
        for (const delegate of core.issued) keep('delegate reference ID', delegate);
        const sealed = await h.services.database.query<{ delegate_sealed: string }>(
          'select delegate_sealed from associations',
        );
        for (const row of sealed) keep('sealed delegate reference ID', row.delegate_sealed);

        const rows = await allAuditRows(h);
        const types = new Set(rows.map((row) => row.event_type));
        for (const type of [
          'token.issued',
          'token.denied',
          'access.denied',
          'session.registered',
          'session.renewed',
          'accounts.listed',
        ]) {
          assert.ok(types.has(type), `the walk-through wrote ${type}`);
        }
        const table = JSON.stringify(rows);
        for (const [value, what] of secrets) assert.ok(!table.includes(value), `the audit table holds a ${what}`);
        assert.ok(!table.includes('junk-'), 'an unknown client_id typed by the caller is not stored');
      });

      it('refuses UPDATE, DELETE and TRUNCATE of audit rows', async () => {
        const before = await allAuditRows(h);
        assert.ok(before.length > 0);
        await assert.rejects(
          h.services.database.query(`update audit_log set outcome = 'success' where outcome = 'failure'`),
          /append-only/,
        );
        await assert.rejects(h.services.database.query(`update audit_log set client_id = null`), /append-only/);
        await assert.rejects(
          h.services.database.query(`delete from audit_log where event_type = 'token.denied'`),
          /append-only/,
        );
        await assert.rejects(h.services.database.query('delete from audit_log'), /append-only/);
        await assert.rejects(h.services.database.query('truncate audit_log'), /append-only/);
        assert.deepEqual(await allAuditRows(h), before, 'every row unchanged');
      });

      it('answers normally when the audit write fails, and logs the failure at error level', async () => {
        const client = await h.client({ platform: 'audit-broken' });
        await h.services.database.query('alter table audit_log rename to audit_log_away');
        lines.length = 0;
        try {
          const response = await postToken(h, { client, body: { grant_type: 'client_credentials' } });
          assertIssued(response, 'a failed audit write does not fail the request');
          const failures = lines
            .map((line) => JSON.parse(line) as { level: number; msg: string; audit?: Record<string, unknown> })
            .filter((entry) => entry.msg === 'audit log write failed');
          assert.equal(failures.length, 1, lines.join('\n'));
          assert.equal(failures[0]!.level, 50, 'error level');
          assert.equal(failures[0]!.audit?.['type'], 'token.issued');
          assert.equal(failures[0]!.audit?.['clientId'], client.id);
          assert.equal(failures[0]!.audit?.['requestId'], response.headers['x-request-id']);
          assert.ok(!lines.join('\n').includes(client.secret), 'the log of the failure holds no secret');
        } finally {
          await h.services.database.query('alter table audit_log_away rename to audit_log');
        }
      });
    },
  );
}
