/**
 * The store contract: the same suite runs against every storage backend (embedded
 * PGlite and a real PostgreSQL server), through the very store code production uses.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { isUniqueViolation, type Database } from '../../src/adapters/store/database.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { MIGRATIONS } from '../../src/adapters/store/migrations/index.js';
import { PostgresDatabase } from '../../src/adapters/store/postgres-database.js';
import { SqlClientStore } from '../../src/adapters/store/sql-client-store.js';
import { SqlRefreshTokenStore } from '../../src/adapters/store/sql-refresh-token-store.js';
import { SqlSigningKeyStore } from '../../src/adapters/store/sql-signing-key-store.js';
import type { NewClient } from '../../src/ports/client-store.js';
import type { RefreshTokenRecord } from '../../src/ports/refresh-token-store.js';
import { ActiveKeyConflict, type StoredSigningKey } from '../../src/ports/signing-key-store.js';
import { BACKENDS, type Backend, type OpenBackend } from '../support/backends.js';

const T0 = new Date('2026-03-01T12:00:00.123Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const LATEST_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

function newClient(overrides: Partial<NewClient> = {}): NewClient {
  const id = `cg_${randomBytes(9).toString('base64url')}`;
  return {
    id,
    name: 'contract client',
    platform: id,
    institution: 'default',
    scopes: ['core/main'],
    grants: ['client_credentials', 'refresh_token'],
    allowedIps: [],
    secretDigest: `k1.${randomBytes(32).toString('base64url')}`,
    createdAt: T0,
    ...overrides,
  };
}

function refreshToken(clientId: string, overrides: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord {
  return {
    digest: `k1.${randomBytes(32).toString('base64url')}`,
    clientId,
    chainId: randomUUID(),
    scope: 'core/main',
    issuedAt: T0,
    expiresAt: at(3600),
    ...overrides,
  };
}

function signingKey(createdAt: Date): StoredSigningKey {
  const kid = randomUUID();
  return {
    kid,
    alg: 'EdDSA',
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: randomBytes(32).toString('base64url') },
    privateSealed: `v1.key.${randomBytes(12).toString('base64url')}.${randomBytes(48).toString('base64url')}`,
    createdAt,
    retiredAt: null,
    publishUntil: null,
  };
}

/** Opens a fresh, migrated database of the backend for one group of tests. */
function freshDatabase(backend: Backend, options: { migrated: boolean }) {
  const state = {} as { opened: OpenBackend; db: Database };
  before(async () => {
    state.opened = await backend.open({ empty: !options.migrated });
    state.db = state.opened.database;
    if (options.migrated) await migrate(state.db);
  });
  after(() => state.opened?.close());
  return state;
}

function storeContract(backend: Backend): void {
  describe('migrate', () => {
    const state = freshDatabase(backend, { migrated: false });

    it('applies every migration exactly once when two migrations run at the same time', async () => {
      // On PostgreSQL two separate pools, as two processes starting at once would have;
      // PGlite has a single connection, so both calls share it.
      const second =
        state.opened.databaseUrl === undefined
          ? state.db
          : new PostgresDatabase({
              connectionString: state.opened.databaseUrl,
              poolMax: 2,
              applicationName: 'coregate-test-2',
            });
      try {
        const reports = await Promise.all([migrate(state.db), migrate(second)]);
        const applied = reports.flatMap((report) => report.applied.map((m) => m.version)).sort((a, b) => a - b);
        assert.deepEqual(
          applied,
          MIGRATIONS.map((m) => m.version).sort((a, b) => a - b),
        );
        for (const report of reports) assert.equal(report.current, LATEST_VERSION);
      } finally {
        if (second !== state.db) await second.close();
      }
      const rows = await state.db.query<{ version: number; n: string | number }>(
        'select version, count(*) as n from schema_migrations group by version order by version',
      );
      assert.deepEqual(
        rows.map((row) => [Number(row.version), Number(row.n)]),
        MIGRATIONS.map((m) => [m.version, 1]),
      );
    });

    it('is idempotent: a second run applies nothing', async () => {
      const report = await migrate(state.db);
      assert.deepEqual(report.applied, []);
      assert.equal(report.current, LATEST_VERSION);
    });

    it('applies a failing migration not at all (one transaction)', async () => {
      const broken = {
        version: LATEST_VERSION + 1,
        name: 'broken',
        statements: ['create table contract_half_done (x integer)', 'select * from no_such_table'],
      };
      await assert.rejects(() => migrate(state.db, [...MIGRATIONS, broken]));
      const tables = await state.db.query(
        "select 1 from information_schema.tables where table_name = 'contract_half_done'",
      );
      assert.equal(tables.length, 0);
      const versions = await state.db.query<{ version: number }>(
        'select version from schema_migrations where version = $1',
        [broken.version],
      );
      assert.equal(versions.length, 0);
      assert.deepEqual((await migrate(state.db)).applied, []);
    });

    it('outlasts COREGATE_DB_TIMEOUT_MS: a slow migration, and the wait for another process applying it', async (t) => {
      if (state.opened.databaseUrl === undefined) return t.skip('PGlite puts no time limit on a statement');
      // Two processes whose requests may wait 300 ms each start at once; the migration takes longer.
      const open = () =>
        new PostgresDatabase({ connectionString: state.opened.databaseUrl!, poolMax: 1, timeoutMs: 300 });
      const slow = { version: LATEST_VERSION + 1, name: 'slow', statements: ['select pg_sleep(0.8)'] };
      const [first, second] = [open(), open()];
      try {
        const reports = await Promise.all([
          migrate(first, [...MIGRATIONS, slow]),
          migrate(second, [...MIGRATIONS, slow]),
        ]);
        assert.deepEqual(
          reports.flatMap((report) => report.applied.map((m) => m.version)),
          [slow.version],
        );
        // A request's statement on the same pool is still bounded by the 300 ms: the server's
        // statement_timeout cancels it, or, on a host slow to deliver that cancel, the client's
        // own timer of the same length gives up first. Either way it does not wait out the sleep.
        await assert.rejects(
          () => first.query('select pg_sleep(0.8)'),
          /statement timeout|no answer from the database within 300 ms/,
        );
      } finally {
        await Promise.all([first.close(), second.close()]);
        await state.db.query('delete from schema_migrations where version = $1', [slow.version]);
      }
    });
  });

  // The stores share one migrated database; every test uses its own rows.
  const state = freshDatabase(backend, { migrated: true });

  describe('SqlClientStore', () => {
    const store = () => new SqlClientStore(state.db);

    it('keeps a key client: no secret, its public JWKS as given, bound tokens required; a new method replaces the credentials', async () => {
      const jwks = {
        keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' }],
      };
      const created = await store().create({
        ...newClient({}),
        secretDigest: null,
        authMethod: 'private_key_jwt',
        jwks,
        requireBoundTokens: true,
      });
      const found = await store().findById(created.id);
      assert.equal(found!.secretDigest, null);
      assert.equal(found!.authMethod, 'private_key_jwt');
      assert.deepEqual(found!.jwks, jwks);
      assert.equal(found!.requireBoundTokens, true);
      const rotated = { keys: [{ ...jwks.keys[0]!, kid: 'k2' }] };
      assert.deepEqual(
        (await store().update(created.id, { jwks: rotated }, T0))!.jwks,
        rotated,
        'new keys, same method',
      );
      const tls = await store().update(
        created.id,
        { authMethod: 'tls_client_auth', jwks: null, tlsSubjectDn: 'CN=acme,O=Acme' },
        T0,
      );
      assert.equal(tls!.authMethod, 'tls_client_auth');
      assert.equal(tls!.jwks, null);
      assert.equal(tls!.tlsSubjectDn, 'CN=acme,O=Acme');
      assert.equal((await store().update(created.id, { requireBoundTokens: false }, T0))!.requireBoundTokens, false);
    });

    it('drops the secret of a client moved to a key method', async () => {
      const created = await store().create(newClient({}));
      const moved = await store().update(
        created.id,
        {
          authMethod: 'private_key_jwt',
          jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] },
        },
        T0,
      );
      assert.equal(moved!.secretDigest, null);
      assert.equal(moved!.previousSecretDigest, null);
    });

    it('creates a client and finds it again, arrays and timestamps intact', async () => {
      const input = newClient({
        name: 'Acme — mobile',
        platform: 'acme',
        allowedIps: ['10.0.0.0/8', '2001:db8::/32'],
        grants: ['client_credentials'],
      });
      const created = await store().create(input);
      const expected = {
        id: input.id,
        name: 'Acme — mobile',
        platform: 'acme',
        institution: 'default',
        scopes: ['core/main'],
        grants: ['client_credentials'],
        allowedIps: ['10.0.0.0/8', '2001:db8::/32'],
        enabled: true,
        secretDigest: input.secretDigest,
        createdAt: T0,
        secretRotatedAt: T0,
        updatedAt: T0,
        // No rotation with a grace period yet (clients rotate-secret --grace).
        previousSecretDigest: null,
        previousSecretUntil: null,
        // A client without a chosen method authenticates with its secret, as every client did before.
        authMethod: 'client_secret_basic',
        jwks: null,
        tlsSubjectDn: null,
        requireBoundTokens: false,
      };
      assert.deepEqual(created, expected);
      const found = await store().findById(input.id);
      assert.deepEqual(found, expected);
      assert.ok(found.createdAt instanceof Date);
      assert.ok(Array.isArray(found.allowedIps));
    });

    it('round-trips empty arrays', async () => {
      const input = newClient({ allowedIps: [] });
      await store().create(input);
      assert.deepEqual((await store().findById(input.id))!.allowedIps, []);
    });

    it('answers undefined for an unknown id', async () => {
      assert.equal(await store().findById('cg_unknown'), undefined);
      assert.equal(await store().setEnabled('cg_unknown', false, T0), undefined);
      assert.equal(await store().replaceSecret('cg_unknown', 'k1.x', T0), undefined);
    });

    it('refuses a second client with the same id (unique violation)', async () => {
      const input = newClient();
      await store().create(input);
      await assert.rejects(
        () => store().create({ ...input, name: 'again' }),
        (error: unknown) => isUniqueViolation(error),
      );
    });

    it('lists every client, oldest first', async () => {
      const newer = newClient({ name: 'newer', createdAt: at(-10) });
      const older = newClient({ name: 'older', createdAt: at(-20) });
      await store().create(newer);
      await store().create(older);
      const ids = (await store().list()).map((client) => client.id);
      assert.ok(ids.indexOf(older.id) >= 0 && ids.indexOf(older.id) < ids.indexOf(newer.id));
      const listed = (await store().list()).find((client) => client.id === older.id);
      assert.deepEqual(listed, await store().findById(older.id));
    });

    it('disables and enables, moving updatedAt only', async () => {
      const input = newClient();
      await store().create(input);
      const disabled = await store().setEnabled(input.id, false, at(60));
      assert.equal(disabled!.enabled, false);
      assert.deepEqual(disabled!.updatedAt, at(60));
      assert.deepEqual(disabled!.createdAt, T0);
      assert.deepEqual(disabled!.secretRotatedAt, T0);
      assert.equal((await store().findById(input.id))!.enabled, false);
      const enabled = await store().setEnabled(input.id, true, at(120));
      assert.equal(enabled!.enabled, true);
      assert.deepEqual(enabled!.updatedAt, at(120));
    });

    it('replaces the secret digest and records when', async () => {
      const input = newClient();
      await store().create(input);
      const replaced = await store().replaceSecret(input.id, 'k1.new-digest', at(30));
      assert.equal(replaced!.secretDigest, 'k1.new-digest');
      assert.deepEqual(replaced!.secretRotatedAt, at(30));
      assert.deepEqual(replaced!.updatedAt, at(30));
      assert.deepEqual(replaced!.createdAt, T0);
      assert.deepEqual(await store().findById(input.id), replaced);
    });
  });

  describe('SqlRefreshTokenStore', () => {
    const store = () => new SqlRefreshTokenStore(state.db);
    let clientA: string;
    let clientB: string;
    before(async () => {
      const clients = new SqlClientStore(state.db);
      clientA = (await clients.create(newClient({ name: 'A' }))).id;
      clientB = (await clients.create(newClient({ name: 'B' }))).id;
    });

    it('consumes an inserted token once and returns it', async () => {
      const token = refreshToken(clientA);
      await store().insert(token);
      assert.deepEqual(await store().consume(token.digest, clientA, at(10)), { outcome: 'consumed', token });
    });

    it('answers unknown for a digest it never saw', async () => {
      assert.deepEqual(await store().consume('k1.never-issued', clientA, at(10)), { outcome: 'unknown' });
    });

    it('on a second use answers replayed and revokes the whole chain, nothing else', async () => {
      const first = refreshToken(clientA);
      const second = refreshToken(clientA, { chainId: first.chainId, issuedAt: at(10) });
      const sibling = refreshToken(clientA, { chainId: first.chainId, issuedAt: at(20) });
      const otherChain = refreshToken(clientA);
      for (const token of [first, second, sibling, otherChain]) await store().insert(token);

      assert.equal((await store().consume(first.digest, clientA, at(30))).outcome, 'consumed');
      assert.deepEqual(await store().consume(first.digest, clientA, at(40)), { outcome: 'replayed', token: first });
      assert.deepEqual(await store().consume(second.digest, clientA, at(50)), { outcome: 'dead', token: second });
      assert.deepEqual(await store().consume(sibling.digest, clientA, at(50)), { outcome: 'dead', token: sibling });
      assert.equal((await store().consume(otherChain.digest, clientA, at(50))).outcome, 'consumed');
    });

    it("treats another client's token as unknown and leaves it usable", async () => {
      const token = refreshToken(clientA);
      await store().insert(token);
      assert.deepEqual(await store().consume(token.digest, clientB, at(10)), { outcome: 'unknown' });
      assert.deepEqual(await store().consume(token.digest, clientB, at(11)), { outcome: 'unknown' });
      assert.equal((await store().consume(token.digest, clientA, at(12))).outcome, 'consumed');
    });

    it('keeps a revoked chain dead: a token issued into it after the revocation is dead too', async () => {
      // The race this stands for: a thief and the client present the same token at once.
      // The winner's new token is written only after the loser's replay revoked the chain.
      const first = refreshToken(clientA);
      await store().insert(first);
      assert.equal((await store().consume(first.digest, clientA, at(10))).outcome, 'consumed');
      assert.equal((await store().consume(first.digest, clientA, at(11))).outcome, 'replayed');
      const late = refreshToken(clientA, { chainId: first.chainId, issuedAt: at(12) });
      await store().insert(late);
      assert.deepEqual(await store().consume(late.digest, clientA, at(13)), { outcome: 'dead', token: late });

      const revoked = refreshToken(clientA);
      await store().insert(revoked);
      assert.equal(await store().revokeChainOf(revoked.digest, clientA, at(20)), true);
      const afterRevocation = refreshToken(clientA, { chainId: revoked.chainId, issuedAt: at(21) });
      await store().insert(afterRevocation);
      assert.equal((await store().consume(afterRevocation.digest, clientA, at(22))).outcome, 'dead');
    });

    it('answers dead for an expired token, from its expiry instant on', async () => {
      const token = refreshToken(clientA, { expiresAt: at(100) });
      await store().insert(token);
      assert.deepEqual(await store().consume(token.digest, clientA, at(100)), { outcome: 'dead', token });
      assert.deepEqual(await store().consume(token.digest, clientA, at(500)), { outcome: 'dead', token });
      const fresh = refreshToken(clientA, { expiresAt: at(100) });
      await store().insert(fresh);
      assert.equal((await store().consume(fresh.digest, clientA, new Date(at(100).getTime() - 1))).outcome, 'consumed');
    });

    it('lets exactly one of 10 concurrent consumers have the token', async () => {
      const token = refreshToken(clientA);
      await store().insert(token);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => store().consume(token.digest, clientA, at(10))),
      );
      const outcomes = results.map((result) => result.outcome);
      assert.equal(outcomes.filter((outcome) => outcome === 'consumed').length, 1, outcomes.join(','));
      for (const outcome of outcomes)
        assert.ok(outcome === 'consumed' || outcome === 'replayed' || outcome === 'dead', outcome);
    });

    it("revokes a token's chain on request, only for its own client", async () => {
      const first = refreshToken(clientA);
      const next = refreshToken(clientA, { chainId: first.chainId });
      const otherChain = refreshToken(clientA);
      for (const token of [first, next, otherChain]) await store().insert(token);

      assert.equal(await store().revokeChainOf(first.digest, clientB, at(5)), false);
      assert.equal(await store().revokeChainOf('k1.never-issued', clientA, at(5)), false);
      assert.equal(await store().revokeChainOf(first.digest, clientA, at(5)), true);
      assert.deepEqual(await store().consume(first.digest, clientA, at(6)), { outcome: 'dead', token: first });
      assert.deepEqual(await store().consume(next.digest, clientA, at(6)), { outcome: 'dead', token: next });
      assert.equal((await store().consume(otherChain.digest, clientA, at(6))).outcome, 'consumed');
    });

    it('refuses a second token with the same digest', async () => {
      const token = refreshToken(clientA);
      await store().insert(token);
      await assert.rejects(
        () => store().insert({ ...token, chainId: randomUUID() }),
        (error: unknown) => isUniqueViolation(error),
      );
    });
  });

  describe('SqlSigningKeyStore', () => {
    const store = () => new SqlSigningKeyStore(state.db);
    const reset = () => state.db.query('delete from signing_keys');

    it('publishes nothing before the first key', async () => {
      await reset();
      assert.deepEqual(await store().listPublished(T0), []);
    });

    it('activates a first key and returns it as stored', async () => {
      await reset();
      const key = signingKey(T0);
      await store().activate(key, { retireActive: false, publishUntil: T0 });
      assert.deepEqual(await store().listPublished(at(1)), [key]);
    });

    it('refuses to activate without retiring while a key is active (ActiveKeyConflict)', async () => {
      await reset();
      const first = signingKey(T0);
      await store().activate(first, { retireActive: false, publishUntil: T0 });
      await assert.rejects(
        () => store().activate(signingKey(at(1)), { retireActive: false, publishUntil: at(1) }),
        ActiveKeyConflict,
      );
      assert.deepEqual(await store().listPublished(at(2)), [first]);
    });

    it('lets exactly one of two concurrent first activations win', async () => {
      await reset();
      const keys = [signingKey(T0), signingKey(T0)];
      const results = await Promise.allSettled(
        keys.map((key) => store().activate(key, { retireActive: false, publishUntil: T0 })),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      const lost = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
      assert.equal(won.length, 1);
      assert.equal(lost.length, 1);
      assert.ok(lost[0]!.reason instanceof ActiveKeyConflict, String(lost[0]!.reason));
      const published = await store().listPublished(at(1));
      assert.equal(published.length, 1);
      assert.equal(published[0]!.kid, keys[results.indexOf(won[0]!)]!.kid);
    });

    it('on rotation retires the active key, which stays published until publishUntil', async () => {
      await reset();
      const first = signingKey(T0);
      await store().activate(first, { retireActive: false, publishUntil: T0 });
      const second = signingKey(at(60));
      const publishUntil = at(60 + 3600);
      await store().activate(second, { retireActive: true, publishUntil });

      const retiredFirst = { ...first, retiredAt: second.createdAt, publishUntil };
      assert.deepEqual(await store().listPublished(at(61)), [second, retiredFirst], 'newest first');
      assert.deepEqual(await store().listPublished(new Date(publishUntil.getTime() - 1)), [second, retiredFirst]);
      assert.deepEqual(await store().listPublished(publishUntil), [second], 'gone once publishUntil is reached');
      assert.deepEqual(await store().listPublished(at(10 * 86_400)), [second], 'the active key never expires');
    });

    it('keeps several retired keys published while each is within its window', async () => {
      await reset();
      const k1 = signingKey(T0);
      const k2 = signingKey(at(10));
      const k3 = signingKey(at(20));
      await store().activate(k1, { retireActive: false, publishUntil: T0 });
      await store().activate(k2, { retireActive: true, publishUntil: at(100) });
      await store().activate(k3, { retireActive: true, publishUntil: at(200) });
      assert.deepEqual(
        (await store().listPublished(at(50))).map((key) => key.kid),
        [k3.kid, k2.kid, k1.kid],
      );
      assert.deepEqual(
        (await store().listPublished(at(150))).map((key) => key.kid),
        [k3.kid, k2.kid],
      );
      assert.deepEqual(
        (await store().listPublished(at(250))).map((key) => key.kid),
        [k3.kid],
      );
      const active = (await store().listPublished(at(250))).filter((key) => key.retiredAt === null);
      assert.equal(active.length, 1);
    });

    it('leaves exactly one active key after two concurrent rotations', async () => {
      await reset();
      await store().activate(signingKey(T0), { retireActive: false, publishUntil: T0 });
      const rotations = [signingKey(at(10)), signingKey(at(10))];
      const results = await Promise.allSettled(
        rotations.map((key) => store().activate(key, { retireActive: true, publishUntil: at(1000) })),
      );
      assert.ok(results.some((result) => result.status === 'fulfilled'));
      for (const result of results) {
        if (result.status === 'rejected') assert.ok(result.reason instanceof ActiveKeyConflict, String(result.reason));
      }
      const published = await store().listPublished(at(11));
      assert.equal(published.filter((key) => key.retiredAt === null).length, 1);
      for (const [index, result] of results.entries()) {
        if (result.status === 'fulfilled') assert.ok(published.some((key) => key.kid === rotations[index]!.kid));
      }
    });
  });
}

for (const backend of BACKENDS) {
  describe(`store contract (${backend.name})`, { skip: backend.skip }, () => storeContract(backend));
}
