/**
 * Migration 4 and the institution store on both backends: a database made by
 * migrations 1–3, with rows in it, moves to `default` with nothing lost (clients,
 * associations whose delegate reference IDs still open, audit rows); institutions
 * keep their API key sealed; one platform's customerId lives at two institutions. Migration 15:
 * institutions of kind `fineract`, their settings and their service user sealed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { MIGRATIONS } from '../../src/adapters/store/migrations/index.js';
import { SqlAssociationStore } from '../../src/adapters/store/sql-association-store.js';
import { SqlAuditLog } from '../../src/adapters/store/sql-audit-log.js';
import { SqlClientStore } from '../../src/adapters/store/sql-client-store.js';
import { SqlInstitutionStore } from '../../src/adapters/store/sql-institution-store.js';
import { BACKENDS, type OpenBackend } from '../support/backends.js';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

for (const backend of BACKENDS) {
  describe(`institutions: migration 4 and store (${backend.name})`, { skip: backend.skip }, () => {
    let opened: OpenBackend;
    const sealer = new AesGcmSealer([encryptionKey(randomBytes(32))]);

    before(async () => {
      opened = await backend.open({ empty: true });
    });
    after(() => opened?.close());

    it('moves clients, associations and audit rows of a version-3 database to "default" with nothing lost', async () => {
      const db = opened.database;
      await migrate(
        db,
        MIGRATIONS.filter((migration) => migration.version <= 3),
      );
      // Rows as the version-3 code wrote them: the delegate sealed with the (platform, customerId) context.
      await db.query(
        `insert into clients (id, name, platform, scopes, grants, allowed_ips, enabled, secret_digest, created_at, secret_rotated_at, updated_at)
         values ('cg_old', 'old client', 'acme', '{core/main}', '{client_credentials}', '{10.0.0.0/8}', true, 'k1.digest', $1, $1, $1)`,
        [T0],
      );
      const sealed = sealer.seal('DRID-old-1', `delegate:${JSON.stringify(['acme', 'cust-1'])}`);
      await db.query(
        `insert into associations (platform, customer_id, customer_key, delegate_sealed, delegate_key_id, expires_at, version, created_at, updated_at)
         values ('acme', 'cust-1', 'C-1001', $1, $2, $3, 3, $4, $4)`,
        [sealed, sealed.split('.')[1], at(900), T0],
      );
      await db.query(
        `insert into audit_log (occurred_at, event_type, outcome, reason, actor, client_id, platform, customer_id, request_id)
         values ($1, 'session.registered', 'success', null, 'client', 'cg_old', 'acme', 'cust-1', 'req-old')`,
        [T0],
      );

      const report = await migrate(db);
      assert.deepEqual(
        report.applied.map((m) => m.version),
        MIGRATIONS.filter((m) => m.version > 3).map((m) => m.version),
      );

      const client = await new SqlClientStore(db).findById('cg_old');
      assert.equal(client?.institution, 'default');
      assert.deepEqual(client?.allowedIps, ['10.0.0.0/8']);
      assert.equal(client?.platform, 'acme');

      const associations = new SqlAssociationStore(db, sealer);
      const moved = await associations.find({ institution: 'default', platform: 'acme', customerId: 'cust-1' });
      assert.ok(moved, 'the association is at default');
      assert.equal(moved.delegateReferenceId, 'DRID-old-1', 'its sealed delegate reference ID still opens');
      assert.equal(moved.customerKey, 'C-1001');
      assert.equal(moved.version, 3);
      assert.deepEqual(moved.expiresAt, at(900));

      const audit = await new SqlAuditLog(db).list({ platform: 'acme', limit: 10 });
      assert.equal(audit.length, 1);
      assert.equal(audit[0]!.institution, 'default');
      assert.equal(audit[0]!.requestId, 'req-old');

      const institutions = await new SqlInstitutionStore(db, sealer).list();
      assert.deepEqual(
        institutions.map((i) => [i.id, i.enabled, i.coreUrl]),
        [['default', true, undefined]],
      );
    });

    it('keeps the same platform and customerId apart at two institutions, and a new audit row names its institution', async () => {
      const db = opened.database;
      const institutions = new SqlInstitutionStore(db, sealer);
      await institutions.create({
        id: 'bank-b',
        name: 'Bank B',
        coreUrl: 'http://127.0.0.1:8091',
        coreApiKey: undefined,
        coreCaFile: undefined,
        coreCertFile: undefined,
        coreKeyFile: undefined,
        coreTimeoutMs: undefined,
        coreKind: 'coregate',
        fineract: undefined,
        coreCredentials: undefined,
        createdAt: T0,
      });
      const associations = new SqlAssociationStore(db, sealer);
      const session = (customerKey: string, drid: string) => ({
        customerKey,
        delegateReferenceId: drid,
        expiresAt: at(900),
      });
      const atB = { institution: 'bank-b', platform: 'acme', customerId: 'cust-1' };
      const registered = await associations.register(atB, session('C-2002', 'DRID-b'), at(1));
      assert.equal(registered.outcome, 'registered', 'the customerId of default is free at bank-b');
      assert.equal((await associations.find(atB))?.delegateReferenceId, 'DRID-b');
      assert.equal(
        (await associations.find({ ...atB, institution: 'default' }))?.customerKey,
        'C-1001',
        'default keeps its own',
      );
      assert.equal(await associations.find({ ...atB, institution: 'bank-c' }), undefined);
      assert.deepEqual(
        (await associations.listByPlatform('acme', 10)).map((a) => [a.institution, a.customerKey]),
        [
          ['bank-b', 'C-2002'],
          ['default', 'C-1001'],
        ],
      );
      assert.deepEqual(
        (await associations.listByPlatform('acme', 10, 'bank-b')).map((a) => a.customerKey),
        ['C-2002'],
      );
      assert.equal(await associations.delete(atB), true);
      assert.ok(await associations.find({ ...atB, institution: 'default' }), 'deleting at bank-b leaves default alone');

      const log = new SqlAuditLog(db);
      await log.record({
        type: 'token.issued',
        outcome: 'success',
        reason: null,
        actor: 'client',
        clientId: 'cg_x',
        platform: 'acme',
        institution: 'bank-b',
        customerId: null,
        requestId: 'req-b',
        occurredAt: at(2),
      });
      const [latest] = await log.list({ platform: 'acme', limit: 1 });
      assert.equal(latest?.institution, 'bank-b');
    });

    it('stores the core API key sealed, opens it, and refuses a second institution with the same id', async () => {
      const db = opened.database;
      const store = new SqlInstitutionStore(db, sealer);
      const created = await store.create({
        id: 'bank-key',
        name: 'Keyed',
        coreUrl: 'https://core.bank.example',
        coreApiKey: 'the-secret-api-key',
        coreCaFile: '/etc/ca.pem',
        coreCertFile: '/etc/c.pem',
        coreKeyFile: '/etc/k.pem',
        coreTimeoutMs: 2500,
        coreKind: 'coregate',
        fineract: undefined,
        coreCredentials: undefined,
        createdAt: T0,
      });
      assert.equal(created?.coreApiKey, 'the-secret-api-key');
      const [row] = await db.query<{ core_api_key_sealed: string; core_api_key_key_id: string }>(
        `select core_api_key_sealed, core_api_key_key_id from institutions where id = 'bank-key'`,
      );
      assert.doesNotMatch(row!.core_api_key_sealed, /the-secret-api-key/);
      assert.ok(row!.core_api_key_key_id.length > 0);
      assert.equal(
        await store.create({ ...created, coreApiKey: undefined, createdAt: T0, coreUrl: 'http://x' }),
        undefined,
      );
      const updated = await store.update('bank-key', { name: 'Renamed', coreTimeoutMs: 3000 }, at(5));
      assert.equal(updated?.coreApiKey, 'the-secret-api-key', 'a change without a key keeps the key');
      assert.equal(updated?.name, 'Renamed');
      assert.equal(updated?.coreCertFile, '/etc/c.pem');
      assert.deepEqual(updated?.updatedAt, at(5));
      assert.equal((await store.setEnabled('bank-key', false, at(6)))?.enabled, false);
      assert.equal(await store.setEnabled('nope', false, at(6)), undefined);
    });

    it('stores a Fineract core: its kind and settings, its service user sealed, and changes one setting at a time', async () => {
      const db = opened.database;
      const store = new SqlInstitutionStore(db, sealer);
      const created = await store.create({
        id: 'bank-fin',
        name: 'Fineract bank',
        coreUrl: 'https://fineract.bank.example/fineract-provider',
        coreApiKey: undefined,
        coreCaFile: undefined,
        coreCertFile: undefined,
        coreKeyFile: undefined,
        coreTimeoutMs: undefined,
        coreKind: 'fineract',
        fineract: {
          tenant: 'bank-a',
          ssnDocumentType: 'SSN',
          customerKey: 'id',
          ssnLookup: 'client-search',
          sessionTtlSeconds: 900,
        },
        coreCredentials: { username: 'coregate-ro', password: 'pa:ss-word-42' },
        createdAt: T0,
      });
      assert.equal(created?.coreKind, 'fineract');
      assert.deepEqual(created?.fineract, {
        tenant: 'bank-a',
        ssnDocumentType: 'SSN',
        customerKey: 'id',
        ssnLookup: 'client-search',
        sessionTtlSeconds: 900,
      });
      assert.deepEqual(created?.coreCredentials, { username: 'coregate-ro', password: 'pa:ss-word-42' });
      const [row] = await db.query<Record<string, unknown>>(`select * from institutions where id = 'bank-fin'`);
      const raw = JSON.stringify(row);
      assert.doesNotMatch(raw, /pa:ss-word-42/, 'the password is not in the row');
      assert.doesNotMatch(raw, /coregate-ro/, 'nor the user name');
      assert.ok(String(row!['core_credentials_key_id']).length > 0);

      const updated = await store.update(
        'bank-fin',
        { fineract: { customerKey: 'external-id', ssnLookup: 'client-search', sessionTtlSeconds: 600 } },
        at(5),
      );
      assert.deepEqual(updated?.fineract, {
        tenant: 'bank-a',
        ssnDocumentType: 'SSN',
        customerKey: 'external-id',
        ssnLookup: 'client-search',
        sessionTtlSeconds: 600,
      });
      assert.deepEqual(updated?.coreCredentials, { username: 'coregate-ro', password: 'pa:ss-word-42' });
      const rotated = await store.update(
        'bank-fin',
        { coreCredentials: { username: 'coregate-ro', password: 'new-one' } },
        at(6),
      );
      assert.equal(rotated?.coreCredentials?.password, 'new-one');
      assert.equal(rotated?.fineract?.tenant, 'bank-a');

      const switched = await store.update('bank-fin', { coreKind: 'coregate' }, at(7));
      assert.equal(switched?.coreKind, 'coregate');
      assert.equal(switched?.fineract, undefined, 'a reference-protocol core has no Fineract settings');
      const listed = (await store.list()).find((institution) => institution.id === 'bank-key');
      assert.equal(listed?.coreKind, 'coregate', 'existing institutions speak the reference protocol');
      await assert.rejects(
        db.query(`update institutions set core_kind = 'other' where id = 'bank-fin'`),
        'the column takes the two kinds only',
      );
    });
  });
}
