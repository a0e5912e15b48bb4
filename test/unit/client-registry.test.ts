import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CLIENT_SECRET_PREFIX, ClientRegistry } from '../../src/app/client-registry.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { HmacCredentialHasher } from '../../src/adapters/crypto/hmac-credential-hasher.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { SqlClientStore } from '../../src/adapters/store/sql-client-store.js';
import { ApiError, type FieldProblem } from '../../src/domain/errors.js';
import { pgliteBackend, type OpenBackend } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';

function assertProblems(run: () => Promise<unknown>, paths: string[]): Promise<void> {
  return assert.rejects(run, (error: unknown) => {
    assert.ok(
      error instanceof ApiError && error.code === 'invalid_request',
      `expected invalid_request, got ${String(error)}`,
    );
    const problems = error.data['errors'] as FieldProblem[];
    assert.deepEqual(problems.map((p) => p.path).sort(), [...paths].sort());
    for (const problem of problems) assert.ok(problem.message.length > 0);
    return true;
  });
}

describe('ClientRegistry (on PGlite)', () => {
  let backend: OpenBackend;
  let store: SqlClientStore;
  let registry: ClientRegistry;
  const hasher = new HmacCredentialHasher([encryptionKey(randomBytes(32))]);
  const clock = new FakeClock('2026-03-01T12:00:00.000Z');

  before(async () => {
    backend = await pgliteBackend.open();
    await migrate(backend.database);
    store = new SqlClientStore(backend.database);
    registry = new ClientRegistry(store, hasher, clock);
  });
  beforeEach(async () => {
    await backend.database.query('delete from clients');
  });
  after(() => backend?.close());

  it('creates a client with the defaults: core/main, client_credentials, its own platform, any IP', async () => {
    const { client, secret } = await registry.create({ name: '  Acme mobile  ' });
    assert.match(client.id, /^cg_[A-Za-z0-9_-]{20}$/);
    assert.equal(client.name, 'Acme mobile');
    assert.equal(client.platform, client.id);
    assert.deepEqual(client.scopes, ['core/main']);
    assert.deepEqual(client.grants, ['client_credentials']);
    assert.deepEqual(client.allowedIps, []);
    assert.equal(client.enabled, true);
    assert.deepEqual(client.createdAt, clock.now());
    assert.ok(!('secretDigest' in client), 'the digest does not leave the registry');
    assert.ok(secret.startsWith(CLIENT_SECRET_PREFIX));
    assert.ok(Buffer.from(secret.slice(CLIENT_SECRET_PREFIX.length), 'base64url').length >= 32);
    const stored = await store.findById(client.id);
    assert.ok(stored?.secretDigest);
    assert.ok(!stored.secretDigest.includes(secret.slice(CLIENT_SECRET_PREFIX.length)));
    assert.equal(hasher.matches(secret, stored.secretDigest), true);
  });

  it('moves a client between methods: to keys drops the secret and refuses rotate-secret; back to a secret, rotate-secret makes one', async () => {
    const jwks = {
      keys: [
        {
          kty: 'OKP',
          crv: 'Ed25519',
          x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
          kid: 'k1',
          ext: true,
          key_ops: ['verify'],
        },
      ],
    };
    const { client, secret } = await registry.create({ name: 'mover' });
    const moved = await registry.update(client.id, { authMethod: 'private_key_jwt', jwks });
    assert.equal(moved.authMethod, 'private_key_jwt');
    assert.deepEqual(
      moved.jwks,
      { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' }] },
      'public members only',
    );
    assert.equal((await store.findById(client.id))!.secretDigest, null);
    await assert.rejects(
      registry.rotateSecret(client.id),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_request',
    );
    await registry.update(client.id, { authMethod: 'client_secret_basic' });
    const rotated = await registry.rotateSecret(client.id, 60);
    assert.notEqual(rotated.secret, secret);
    assert.equal(rotated.previousSecretUntil, null, 'no previous secret to keep');
    assert.equal(hasher.matches(rotated.secret, (await store.findById(client.id))!.secretDigest!), true);
  });

  it('refuses a key method without its credentials, and credentials of another method', async () => {
    await assertProblems(() => registry.create({ name: 'x', authMethod: 'private_key_jwt' }), ['jwks-file']);
    await assertProblems(() => registry.create({ name: 'x', authMethod: 'tls_client_auth' }), ['tls-subject-dn']);
    await assertProblems(() => registry.create({ name: 'x', tlsSubjectDn: 'CN=x' }), ['tls-subject-dn']);
    await assertProblems(() => registry.create({ name: 'x', authMethod: 'client_secret_post' }), ['auth-method']);
    await assertProblems(
      () =>
        registry.create({
          name: 'x',
          authMethod: 'self_signed_tls_client_auth',
          jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b' }] },
        }),
      ['jwks-file'],
    );
  });

  it('keeps the given platform, grants and canonical, de-duplicated CIDR blocks', async () => {
    const { client } = await registry.create({
      name: 'acme',
      platform: 'acme-bank.eu:1',
      scopes: ['core/main', 'core/main'],
      grants: ['refresh_token', 'client_credentials', 'refresh_token'],
      allowedIps: ['10.0.0.0/8', ' 10.0.0.0/8', '2001:db8::1'],
    });
    assert.equal(client.platform, 'acme-bank.eu:1');
    assert.deepEqual(client.scopes, ['core/main']);
    assert.deepEqual([...client.grants].sort(), ['client_credentials', 'refresh_token']);
    assert.deepEqual(client.allowedIps, ['10.0.0.0/8', '2001:db8::1/128']);
  });

  it('refuses an unknown scope', () =>
    assertProblems(() => registry.create({ name: 'x', scopes: ['core/admin'] }), ['scope']));
  it('refuses an unknown grant', () =>
    assertProblems(() => registry.create({ name: 'x', grants: ['authorization_code'] }), ['grant']));
  it('refuses a bad CIDR block', () =>
    assertProblems(() => registry.create({ name: 'x', allowedIps: ['10.0.0.0/33'] }), ['allow-ip']));
  it('refuses a host name as an IP block', () =>
    assertProblems(() => registry.create({ name: 'x', allowedIps: ['example.com'] }), ['allow-ip']));
  it('refuses an empty name', () => assertProblems(() => registry.create({ name: '   ' }), ['name']));
  it('refuses a too long name', () => assertProblems(() => registry.create({ name: 'n'.repeat(201) }), ['name']));
  for (const platform of ['', 'has space', '-leading-dash', 'p'.repeat(65), 'acme/other', 'ünïcode']) {
    it(`refuses the platform "${platform.length > 20 ? `${platform.slice(0, 8)}…` : platform}"`, () =>
      assertProblems(() => registry.create({ name: 'x', platform }), ['platform']));
  }

  it('reports every bad field at once and stores nothing', async () => {
    await assertProblems(
      () =>
        registry.create({
          name: '',
          platform: 'a b',
          scopes: ['nope'],
          grants: ['implicit'],
          allowedIps: ['1.2.3.4/99'],
        }),
      ['name', 'platform', 'scope', 'grant', 'allow-ip'],
    );
    assert.deepEqual(await registry.list(), []);
  });

  it('shows, disables, enables and rotates; unknown ids are NotFound', async () => {
    const { client, secret } = await registry.create({ name: 'x' });
    clock.advance(60);
    assert.equal((await registry.setEnabled(client.id, false)).enabled, false);
    assert.equal((await registry.show(client.id)).enabled, false);
    assert.equal((await registry.setEnabled(client.id, true)).enabled, true);
    const rotated = await registry.rotateSecret(client.id);
    assert.notEqual(rotated.secret, secret);
    assert.deepEqual(rotated.client.secretRotatedAt, clock.now());
    const stored = await store.findById(client.id);
    assert.equal(hasher.matches(secret, stored!.secretDigest!), false);
    assert.equal(hasher.matches(rotated.secret, stored!.secretDigest!), true);
    for (const run of [
      () => registry.show('cg_nope'),
      () => registry.setEnabled('cg_nope', true),
      () => registry.rotateSecret('cg_nope'),
    ]) {
      await assert.rejects(
        run,
        (error) => error instanceof ApiError && error.code === 'not_found' && error.name === 'NotFound',
      );
    }
  });
});
