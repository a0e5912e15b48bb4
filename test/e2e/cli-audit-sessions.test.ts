/**
 * `coregate audit list` and `coregate sessions list|revoke` against a running
 * server: on the embedded database (the commands go through the server's admin
 * socket) and on PostgreSQL (the CLI opens the database itself). JSON output is one
 * document on stdout; no delegate reference ID is ever printed; a revocation is
 * audited as the operator's and forces a new registration.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createFreshDatabase, postgresSkip } from '../support/postgres.js';
import {
  killAll,
  requestToken,
  runCli,
  runJson,
  startServer,
  tempDataDir,
  type CreatedClient,
  type Env,
} from './support/process.js';

after(killAll);

interface AuditJson {
  id: string;
  occurredAt: string;
  type: string;
  outcome: string;
  reason: string | null;
  actor: string;
  clientId: string | null;
  platform: string | null;
  customerId: string | null;
  requestId: string | null;
}

interface SessionJson {
  customerId: string;
  customerKey: string;
  expiresAt: string;
  needsReregistration: boolean;
  createdAt: string;
  updatedAt: string;
}

// docs/behaviour.md#institution-isolation: audit rows and `sessions list` carry the institution.
const AUDIT_KEYS = [
  'actor',
  'clientId',
  'customerId',
  'id',
  'institution',
  'occurredAt',
  'outcome',
  'platform',
  'reason',
  'requestId',
  'type',
];
const SESSION_KEYS = [
  'createdAt',
  'customerId',
  'customerKey',
  'expiresAt',
  'institution',
  'needsReregistration',
  'updatedAt',
];

async function gateway(
  url: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<number> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(5_000),
  });
  await response.arrayBuffer();
  return response.status;
}

const register = (url: string, token: string, customerId: string, customerKey: string) =>
  gateway(url, token, 'POST', '/core/sessions', { customer: { customerKey }, registration: { customerId } });
const accounts = (url: string, token: string, customerId: string) =>
  gateway(url, token, 'GET', `/core/accounts?customerId=${encodeURIComponent(customerId)}`);

function assertNewestFirst(events: AuditJson[]): void {
  for (let i = 1; i < events.length; i += 1) {
    assert.ok(events[i - 1]!.occurredAt >= events[i]!.occurredAt, `newest first: ${JSON.stringify(events)}`);
  }
}

/**
 * The walk-through: events from HTTP, then the CLI's view of them. `full` adds the
 * checks that do not depend on the backend (text output, refusals of bad options).
 */
async function walkThrough(env: Env, url: string, full: boolean): Promise<void> {
  const platform = `e2e-${randomBytes(3).toString('hex')}`;
  const client = await runJson<CreatedClient>(
    ['clients', 'create', '--name', 'audit e2e', '--platform', platform, '--json'],
    env,
  );
  const issued = await requestToken(url, client);
  assert.equal(issued.status, 200);
  const token = String(issued.body['access_token']);
  assert.equal((await requestToken(url, { ...client, client_secret: 'cgs_wrong' })).body['error'], 'invalid_client');
  assert.equal(await register(url, token, 'ada', 'C-1001'), 200);
  assert.equal(await accounts(url, token, 'ada'), 200);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const between = new Date().toISOString();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(await register(url, token, 'bob', 'C-1002'), 200);

  // Everything of the platform, newest first, with exactly the documented keys.
  const all = await runJson<AuditJson[]>(['audit', 'list', '--platform', platform, '--json'], env);
  assertNewestFirst(all);
  for (const event of all) assert.deepEqual(Object.keys(event).sort(), AUDIT_KEYS);
  assert.deepEqual(
    all.map((event) => [event.type, event.outcome, event.reason, event.customerId]),
    [
      ['session.registered', 'success', null, 'bob'],
      ['accounts.listed', 'success', null, 'ada'],
      ['session.registered', 'success', null, 'ada'],
      ['token.denied', 'failure', 'invalid_client', null],
      ['token.issued', 'success', null, null],
      // Operator actions are audited too (`clients create` above).
      ['client.created', 'success', null, null],
    ],
  );
  for (const event of all) {
    assert.equal(event.clientId, client.client_id);
    if (event.type === 'client.created') {
      assert.equal(event.actor, 'operator');
      assert.equal(event.requestId, null);
      continue;
    }
    assert.equal(event.actor, 'client');
    assert.match(event.requestId ?? '', /\S/);
  }

  // Filters: by customer, by time, by count.
  const ada = await runJson<AuditJson[]>(['audit', 'list', '--platform', platform, '--customer', 'ada', '--json'], env);
  assert.deepEqual(
    ada.map((event) => event.type),
    ['accounts.listed', 'session.registered'],
  );
  const recent = await runJson<AuditJson[]>(
    ['audit', 'list', '--customer', 'bob', '--since', between, '--limit', '1', '--json'],
    env,
  );
  assert.deepEqual(
    recent.map((event) => [event.type, event.customerId, event.platform]),
    [['session.registered', 'bob', platform]],
  );
  if (full) await optionChecks(env, platform, all[0]!);

  await sessionsWalkThrough(env, url, platform, token, client);
}

async function optionChecks(env: Env, platform: string, newestOfPlatform: AuditJson): Promise<void> {
  const newest = await runJson<AuditJson[]>(['audit', 'list', '--limit', '1', '--json'], env);
  assert.equal(newest.length, 1);
  assert.equal(newest[0]!.id, newestOfPlatform.id, 'the newest event of all');
  const text = await runCli(['audit', 'list', '--platform', platform, '--customer', 'bob'], env);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^OCCURRED_AT\tTYPE\tOUTCOME/);
  assert.match(text.stdout, /session\.registered\tsuccess\t-\tclient\t/);
  const badSince = await runCli(['audit', 'list', '--since', '2026-03-01T12:00', '--json'], env);
  assert.equal(badSince.code, 1);
  assert.equal(badSince.stdout, '');
  assert.match(badSince.stderr, /--since/);
  const missingPlatform = await runCli(['sessions', 'list', '--json'], env);
  assert.equal(missingPlatform.code, 2);
  assert.match(missingPlatform.stderr, /--platform/);
}

async function sessionsWalkThrough(
  env: Env,
  url: string,
  platform: string,
  token: string,
  client: CreatedClient,
): Promise<void> {
  // Sessions: the platform's customers, never a delegate reference ID.
  const listed = await runCli(['sessions', 'list', '--platform', platform, '--json'], env);
  assert.equal(listed.code, 0, listed.stderr);
  const sessions = JSON.parse(listed.stdout) as SessionJson[];
  assert.deepEqual(
    sessions.map((session) => [session.customerId, session.customerKey, session.needsReregistration]),
    [
      ['ada', 'C-1001', false],
      ['bob', 'C-1002', false],
    ],
  );
  for (const session of sessions) {
    assert.deepEqual(Object.keys(session).sort(), SESSION_KEYS);
    assert.ok(Date.parse(session.expiresAt) > Date.now());
  }
  assert.doesNotMatch(listed.stdout + listed.stderr, /delegate|"v1\./i);

  // Revoke: gone from the list, audited as the operator's, and the customer must register again.
  const revoked = await runJson<{ platform: string; customerId: string; revoked: boolean }>(
    ['sessions', 'revoke', '--platform', platform, '--customer', 'ada', '--json'],
    env,
  );
  assert.deepEqual(revoked, { platform, customerId: 'ada', institution: 'default', revoked: true });
  const left = await runJson<SessionJson[]>(['sessions', 'list', '--platform', platform, '--json'], env);
  assert.deepEqual(
    left.map((session) => session.customerId),
    ['bob'],
  );
  // Refused at once: on the embedded database the server made the revocation (admin socket); on
  // PostgreSQL the CLI's delete was announced on the change feed, which the server follows within
  // milliseconds — well before the `sessions list` process above has even started — although it
  // caches associations for COREGATE_ASSOCIATION_CACHE_SECONDS (5 s).
  assert.equal(await accounts(url, token, 'ada'), 404);
  const afterRevoke = await runJson<AuditJson[]>(
    ['audit', 'list', '--platform', platform, '--customer', 'ada', '--limit', '2', '--json'],
    env,
  );
  assert.deepEqual(
    afterRevoke.map((event) => [
      event.type,
      event.outcome,
      event.reason,
      event.actor,
      event.clientId,
      event.requestId === null,
    ]),
    [
      ['accounts.listed', 'failure', 'customer_not_registered', 'client', client.client_id, false],
      ['session.revoked', 'success', null, 'operator', null, true],
    ],
  );
  const again = await runCli(['sessions', 'revoke', '--platform', platform, '--customer', 'ada', '--json'], env);
  assert.equal(again.code, 1);
  assert.equal(again.stdout, '');
  assert.match(again.stderr, /no registered customer/);
  assert.equal(await register(url, token, 'ada', 'C-1001'), 200, 'registered again');
}

describe('coregate audit and sessions commands', { timeout: 400_000, concurrency: true }, () => {
  it('work through a running server on the embedded database', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };
    const server = await startServer(env);
    t.after(() => server.kill());
    await walkThrough(env, server.url, true);
    const help = await runCli(['sessions', 'revoke', '--help'], env);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /Usage:[\s\S]*sessions revoke --platform P --customer ID/);
    assert.equal((await server.stop()).code, 0);
  });

  it('work on PostgreSQL beside a running server', { skip: postgresSkip }, async (t) => {
    const database = await createFreshDatabase();
    t.after(() => database.drop());
    const data = tempDataDir();
    t.after(data.remove);
    const env = {
      DATABASE_URL: database.url,
      COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      COREGATE_DATA_DIR: data.dir,
    };
    const server = await startServer(env);
    t.after(() => server.kill());
    await walkThrough(env, server.url, false);
    assert.equal((await server.stop()).code, 0);
  });
});
