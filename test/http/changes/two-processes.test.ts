/**
 * Two coregate service instances on one PostgreSQL database, each with its own pool
 * and its own LISTEN connection, as two servers would be
 * (docs/behaviour.md#changes-across-processes). A change made through A — by its admin
 * operations, as the CLI runs them — takes effect at B within a second, far below
 * COREGATE_CLIENT_CACHE_SECONDS: a disabled client, a rotated secret, a revoked signing key;
 * and a customer revoked or deregistered through A is no longer served by B, far below
 * COREGATE_ASSOCIATION_CACHE_SECONDS. When B's listening connection is killed, B falls back to
 * the bounded behaviour of before (the token endpoint reads every client, the bearer check
 * trusts its cache for COREGATE_CLIENT_CACHE_SECONDS on its clock), then reconnects and follows
 * changes at once again.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader } from 'jose';
import pg from 'pg';
import { PostgresChangeFeed } from '../../../src/adapters/store/postgres-change-feed.js';
import { PostgresDatabase } from '../../../src/adapters/store/postgres-database.js';
import { adminOperations } from '../../../src/server/admin-operations.js';
import type { Backend } from '../../support/backends.js';
import { createHarness, protectedTestRoute, type Harness } from '../../support/harness.js';
import { createFreshDatabase, postgresSkip, type FreshDatabase } from '../../support/postgres.js';
import { PostgresRelay } from '../../support/postgres-relay.js';
import { getProtected } from '../bearer/bearer-responses.js';
import { formB, getAccounts, postSession, uniqueId } from '../gateway/gateway-requests.js';
import { clientCredentials, postToken, type TestClient } from '../oauth/oauth-requests.js';
import { arrivesWithin, changeDelivered, countingClientReads, type CountedBackend } from './change-support.js';

const CHANGE_ARRIVES_MS = 1000;
const CLIENT_CACHE_SECONDS = 30;
const ASSOCIATION_CACHE_SECONDS = 60;

describe('change feed across two instances on one PostgreSQL database', { skip: postgresSkip, timeout: 90_000 }, () => {
  let database: FreshDatabase;
  let a: Harness;
  let b: Harness;
  let bBackend: CountedBackend;
  let admin: ReturnType<typeof adminOperations>;

  let listenerRelay: PostgresRelay;

  /**
   * An instance of its own on the shared database: its own pool, its own listening
   * connection — B's through a relay the test can partition, with a quick heartbeat.
   */
  const instance = (listenThroughRelay = false): Backend => ({
    name: 'postgres',
    skip: false,
    async open() {
      const relayed = new URL(database.url);
      relayed.host = `127.0.0.1:${listenerRelay.port}`;
      const own = listenThroughRelay
        ? new (class extends PostgresDatabase {
            override changeFeed() {
              return new PostgresChangeFeed({ connectionString: relayed.toString(), timeoutMs: 500, heartbeatMs: 200 });
            }
          })({ connectionString: database.url, poolMax: 5 })
        : new PostgresDatabase({ connectionString: database.url, poolMax: 5 });
      return { database: own, databaseUrl: database.url, close: () => own.close() };
    },
  });
  const bFeed = () => b.services.changeFeed as PostgresChangeFeed;

  before(async () => {
    database = await createFreshDatabase();
    listenerRelay = new PostgresRelay();
    await listenerRelay.open();
    // Both instances must open each other's sealed data.
    const env = {
      COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      COREGATE_CLIENT_CACHE_SECONDS: String(CLIENT_CACHE_SECONDS),
      COREGATE_ASSOCIATION_CACHE_SECONDS: String(ASSOCIATION_CACHE_SECONDS),
    };
    a = await createHarness(instance(), { env, routes: protectedTestRoute() });
    bBackend = countingClientReads(instance(true));
    b = await createHarness(bBackend, { env, routes: protectedTestRoute() });
    admin = adminOperations(a.services);
    assert.equal(b.services.changeFeed?.live, true);
  });

  after(async () => {
    await a?.close();
    await b?.close();
    await listenerRelay?.cut();
    await database?.drop();
  });

  const tokenAt = (h: Harness, client: TestClient) =>
    postToken(h, { client, body: { grant_type: 'client_credentials' } });
  const tokenStatus = async (h: Harness, client: TestClient) => (await tokenAt(h, client)).statusCode;
  const bearerStatus = async (h: Harness, token: string) => (await getProtected(h, { token })).statusCode;

  /** A client created through A, with a token from B that B's bearer check has admitted (so B holds it in every cache). */
  async function clientKnownToB(): Promise<{ client: TestClient & { platform: string }; token: string }> {
    const announced = changeDelivered(b.services.changeFeed, (change) => change.kind === 'client');
    const client = await a.client();
    await announced; // its creation announced to B
    const { access_token: token } = await clientCredentials(b, client);
    assert.equal(await bearerStatus(b, token), 200);
    return { client, token };
  }

  it('B reads a client once for many token requests', async () => {
    const { client } = await clientKnownToB();
    const before = bBackend.clientReads();
    for (let i = 0; i < 20; i += 1) await clientCredentials(b, client);
    assert.equal(bBackend.clientReads(), before);
  });

  it('a client disabled through A is refused at B’s token endpoint and its tokens at B’s bearer check within 1 s', async () => {
    const { client, token } = await clientKnownToB();
    await admin['clients.set-enabled']({ id: client.id, enabled: false });
    const ms = await arrivesWithin(
      CHANGE_ARRIVES_MS,
      'token endpoint at B',
      async () => (await tokenStatus(b, client)) === 400,
    );
    await arrivesWithin(
      CHANGE_ARRIVES_MS - ms,
      'bearer check at B',
      async () => (await bearerStatus(b, token)) === 401,
    );
  });

  it('a secret rotated through A without grace stops working at B within 1 s', async () => {
    const { client } = await clientKnownToB();
    const { secret } = await admin['clients.rotate-secret']({ id: client.id });
    await arrivesWithin(CHANGE_ARRIVES_MS, 'old secret at B', async () => (await tokenStatus(b, client)) === 400);
    assert.equal(await tokenStatus(b, { id: client.id, secret }), 200);
  });

  it('tokens of a signing key revoked through A stop verifying at B within 1 s', async () => {
    const { client, token } = await clientKnownToB();
    const { kid } = decodeProtectedHeader(token);
    const revoked = await admin['keys.revoke']({ kid: kid! });
    assert.ok(revoked.rotatedTo, 'the active key: rotated first');
    await arrivesWithin(CHANGE_ARRIVES_MS, 'revoked key at B', async () => (await bearerStatus(b, token)) === 401);
    const fresh = await clientCredentials(b, client);
    assert.equal(decodeProtectedHeader(fresh.access_token).kid, revoked.rotatedTo, 'B signs with the new key at once');
    assert.equal(await bearerStatus(a, fresh.access_token), 200);
  });

  it('a customer revoked through A (as the CLI does) or deregistered at A is no longer served by B within 1 s, though B cached it', async () => {
    const { client, token } = await clientKnownToB();
    const accountsAtB = async (customerId: string) => (await getAccounts(b, { token }, customerId)).statusCode;
    const revoked = uniqueId('revoked');
    const deregistered = uniqueId('deregistered');
    for (const customerId of [revoked, deregistered]) {
      assert.equal((await postSession(a, { token }, formB(customerId))).statusCode, 200);
      assert.equal(await accountsAtB(customerId), 200, 'B reads it, and caches it');
    }

    await admin['associations.revoke']({ platform: client.platform, customerId: revoked });
    await arrivesWithin(CHANGE_ARRIVES_MS, 'revocation at B', async () => (await accountsAtB(revoked)) === 404);

    const deleted = await a.app.inject({
      method: 'DELETE',
      url: `/core/sessions?customerId=${deregistered}`,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    await arrivesWithin(
      CHANGE_ARRIVES_MS,
      'deregistration at B',
      async () => (await accountsAtB(deregistered)) === 404,
    );
  });

  it('B’s listening connection killed (pg_terminate_backend): B listens again at once and follows changes', async () => {
    const { client, token } = await clientKnownToB();
    const feed = bFeed();
    const killed = feed.listenerPid;
    assert.ok(killed);
    const superuser = new pg.Client({ connectionString: database.url });
    await superuser.connect();
    try {
      assert.deepEqual((await superuser.query('select pg_terminate_backend($1) as ended', [killed])).rows, [
        { ended: true },
      ]);
    } finally {
      await superuser.end();
    }
    await arrivesWithin(5000, 'B listens again', async () => feed.live && feed.listenerPid !== killed);
    await admin['clients.set-enabled']({ id: client.id, enabled: false });
    await arrivesWithin(
      CHANGE_ARRIVES_MS,
      'token endpoint at B after reconnecting',
      async () => (await tokenStatus(b, client)) === 400,
    );
    await arrivesWithin(
      CHANGE_ARRIVES_MS,
      'bearer check at B after reconnecting',
      async () => (await bearerStatus(b, token)) === 401,
    );
  });

  it('B’s listening connection silently partitioned: B notices (heartbeat), falls back to the bounded behaviour, and recovers once it can listen again', async () => {
    const { client, token } = await clientKnownToB();
    const feed = bFeed();
    listenerRelay.blackhole();
    await arrivesWithin(2000, 'B notices its feed is gone', async () => !feed.live);

    // The token endpoint reads every client again, as before the feed existed.
    const before = bBackend.clientReads();
    assert.equal(await tokenStatus(b, client), 200);
    assert.equal(await tokenStatus(b, client), 200);
    assert.equal(bBackend.clientReads() - before, 2, 'read every time while the feed is down');
    // The bearer check trusts what it read for COREGATE_CLIENT_CACHE_SECONDS.
    assert.equal(await bearerStatus(b, token), 200);
    // Announced (A, still listening, hears it), yet nothing reaches B through its cut feed.
    const announced = changeDelivered(
      a.services.changeFeed,
      (change) => change.kind === 'client' && change.id === client.id,
    );
    await admin['clients.set-enabled']({ id: client.id, enabled: false });
    await announced;
    assert.equal(await tokenStatus(b, client), 400, 'the token endpoint reads the database: refused at once');
    assert.equal(await bearerStatus(b, token), 200, 'the bearer check: within its cache lifetime');
    b.clock.advance(CLIENT_CACHE_SECONDS);
    assert.equal(await bearerStatus(b, token), 401, 'and no longer');

    listenerRelay.restore();
    await arrivesWithin(10_000, 'B listens again', async () => feed.live);
    await admin['clients.set-enabled']({ id: client.id, enabled: true });
    await arrivesWithin(
      CHANGE_ARRIVES_MS,
      'enabled, at B’s token endpoint',
      async () => (await tokenStatus(b, client)) === 200,
    );
    await arrivesWithin(
      CHANGE_ARRIVES_MS,
      'enabled, at B’s bearer check',
      async () => (await bearerStatus(b, token)) === 200,
    );
  });

  it('a feed whose connection is partitioned still closes within its timeout (a shutdown does not wait for TCP)', async () => {
    const relayed = new URL(database.url);
    relayed.host = `127.0.0.1:${listenerRelay.port}`;
    const feed = new PostgresChangeFeed({ connectionString: relayed.toString(), timeoutMs: 500, heartbeatMs: 60_000 });
    await feed.start();
    listenerRelay.blackhole();
    try {
      const started = performance.now();
      await feed.close();
      assert.ok(performance.now() - started < 2000, `closed in ${Math.round(performance.now() - started)} ms`);
    } finally {
      listenerRelay.restore();
    }
  });
});
