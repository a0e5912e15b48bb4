/**
 * `InstitutionAdmin` (`app/institution-admin.ts`) with core kinds, on both storage engines: what
 * each kind needs and refuses (every problem named by its field; the CLI shows its flag), the Fineract defaults,
 * switching an institution's kind, the view that shows `hasCredentials` and never the service
 * user, and `default`, whose core comes from the configuration.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { InstitutionAdmin, type InstitutionInput } from '../../src/app/institution-admin.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { SqlInstitutionStore } from '../../src/adapters/store/sql-institution-store.js';
import { loadConfig } from '../../src/config/config.js';
import { defaultInstitutionCore } from '../../src/config/default-institution.js';
import { ApiError } from '../../src/domain/errors.js';
import { BACKENDS, type OpenBackend } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';

const FINERACT: InstitutionInput = {
  name: 'Bank F',
  coreUrl: 'https://fineract.bank-f.example/fineract-provider',
  coreKind: 'fineract',
  fineractTenant: 'bank-f',
  coreCredentials: 'coregate-ro:pa:ss',
};

/** The options a refusal names, in its order. */
async function refusedPaths(action: Promise<unknown>): Promise<string[]> {
  try {
    await action;
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.status, 400);
    return (error.data['errors'] as Array<{ path: string }>).map((problem) => problem.path);
  }
  assert.fail('expected a refusal');
}

for (const backend of BACKENDS) {
  describe(`institution admin: core kinds (${backend.name})`, { skip: backend.skip }, () => {
    let opened: OpenBackend;
    let admin: InstitutionAdmin;

    before(async () => {
      opened = await backend.open();
      await migrate(opened.database);
      const store = new SqlInstitutionStore(opened.database, new AesGcmSealer([encryptionKey(randomBytes(32))]));
      const config = loadConfig({
        COREGATE_CORE_KIND: 'fineract',
        CORE_URL: 'https://fineract.default.example/fineract-provider',
        COREGATE_FINERACT_USERNAME: 'svc',
        COREGATE_FINERACT_PASSWORD: 'pw',
      });
      admin = new InstitutionAdmin(store, new FakeClock(), { core: defaultInstitutionCore(config) });
    });
    after(() => opened?.close());

    it('adds a Fineract institution with the defaults filled in, showing only that it has credentials', async () => {
      const view = await admin.add('bank-f', FINERACT);
      assert.equal(view.coreKind, 'fineract');
      assert.deepEqual(view.fineract, {
        tenant: 'bank-f',
        ssnDocumentType: 'SSN',
        customerKey: 'id',
        ssnLookup: 'client-search',
        sessionTtlSeconds: 900,
      });
      assert.equal(view.hasCredentials, true);
      assert.equal(view.hasApiKey, false);
      assert.doesNotMatch(JSON.stringify(view), /pa:ss|coregate-ro/);
      assert.equal((await admin.show('bank-f')).coreSource, 'database');
    });

    it('refuses what a Fineract core needs and does not take, naming each option', async () => {
      assert.deepEqual(await refusedPaths(admin.add('bank-g', { ...FINERACT, fineractTenant: undefined })), [
        'fineractTenant',
      ]);
      assert.deepEqual(await refusedPaths(admin.add('bank-g', { ...FINERACT, coreCredentials: undefined })), [
        'coreCredentials',
      ]);
      for (const credentials of ['no-colon', ':password-only', 'user-only:', 'line\nbreak:x']) {
        assert.deepEqual(await refusedPaths(admin.add('bank-g', { ...FINERACT, coreCredentials: credentials })), [
          'coreCredentials',
        ]);
      }
      assert.deepEqual(await refusedPaths(admin.add('bank-g', { ...FINERACT, fineractCustomerKey: 'accountNo' })), [
        'fineractCustomerKey',
      ]);
      for (const ttl of [59, 86_401, 1.5]) {
        assert.deepEqual(await refusedPaths(admin.add('bank-g', { ...FINERACT, fineractSessionTtlSeconds: ttl })), [
          'fineractSessionTtlSeconds',
        ]);
      }
      assert.deepEqual(await refusedPaths(admin.add('bank-g', { ...FINERACT, coreKind: 'temenos' })), ['coreKind']);
      assert.deepEqual(await refusedPaths(admin.add('bank-g', { ...FINERACT, coreApiKey: 'key' })), ['coreApiKey']);
      assert.deepEqual(
        await refusedPaths(
          admin.add('bank-g', { name: 'G', coreUrl: 'http://g', fineractTenant: 't', coreCredentials: 'a:b' }),
        ),
        ['fineractTenant', 'coreCredentials'],
        'Fineract settings need coreKind fineract',
      );
      await assert.rejects(admin.show('bank-g'), /no institution/);
    });

    it('keeps the SSN lookup mode, one change at a time, and refuses another naming the option', async () => {
      await admin.add('bank-l', { ...FINERACT, fineractSsnLookup: 'identifier-search' });
      assert.equal((await admin.show('bank-l')).fineract?.ssnLookup, 'identifier-search');
      assert.equal(
        (await admin.update('bank-l', { fineractSessionTtlSeconds: 300 })).fineract?.ssnLookup,
        'identifier-search',
      );
      assert.equal((await admin.update('bank-l', { fineractSsnLookup: 'off' })).fineract?.ssnLookup, 'off');
      for (const mode of ['search', 'OFF', ''])
        assert.deepEqual(await refusedPaths(admin.update('bank-l', { fineractSsnLookup: mode })), [
          'fineractSsnLookup',
        ]);
      assert.equal((await admin.show('bank-l')).fineract?.ssnLookup, 'off');
    });

    it('switches an institution to Fineract only with a tenant and credentials, and back', async () => {
      await admin.add('bank-s', { name: 'Bank S', coreUrl: 'https://core.bank-s.example' });
      assert.equal((await admin.show('bank-s')).coreKind, 'coregate');
      assert.deepEqual(await refusedPaths(admin.update('bank-s', { coreKind: 'fineract' })), [
        'fineractTenant',
        'coreCredentials',
      ]);
      const switched = await admin.update('bank-s', {
        coreKind: 'fineract',
        fineractTenant: 'bank-s',
        coreCredentials: 'svc:pw',
        fineractCustomerKey: 'external-id',
      });
      assert.deepEqual(switched.fineract, {
        tenant: 'bank-s',
        ssnDocumentType: 'SSN',
        customerKey: 'external-id',
        ssnLookup: 'client-search',
        sessionTtlSeconds: 900,
      });
      const ttl = await admin.update('bank-s', { fineractSessionTtlSeconds: 120 });
      assert.equal(ttl.fineract?.sessionTtlSeconds, 120);
      assert.equal(ttl.fineract?.customerKey, 'external-id', 'other settings are kept');
      const back = await admin.update('bank-s', { coreKind: 'coregate' });
      assert.equal(back.coreKind, 'coregate');
      assert.equal(back.fineract, undefined);
      assert.deepEqual(await refusedPaths(admin.update('bank-s', { fineractTenant: 'x' })), ['fineractTenant']);
      // Back to Fineract: the kind starts from the defaults again and needs its tenant; the sealed
      // service user is kept.
      assert.deepEqual(await refusedPaths(admin.update('bank-s', { coreKind: 'fineract' })), ['fineractTenant']);
      const again = await admin.update('bank-s', { coreKind: 'fineract', fineractTenant: 'bank-s2' });
      assert.deepEqual(again.fineract, {
        tenant: 'bank-s2',
        ssnDocumentType: 'SSN',
        customerKey: 'id',
        ssnLookup: 'client-search',
        sessionTtlSeconds: 900,
      });
      assert.equal(again.hasCredentials, true);
    });

    it('shows default from the configuration and refuses its core options', async () => {
      const shown = await admin.show('default');
      assert.equal(shown.coreKind, 'fineract');
      assert.equal(shown.hasCredentials, true);
      assert.equal(shown.fineract?.tenant, 'default');
      assert.equal(shown.coreSource, 'config');
      assert.deepEqual(await refusedPaths(admin.update('default', { fineractTenant: 'x', coreKind: 'fineract' })), [
        'coreKind',
        'fineractTenant',
      ]);
    });
  });
}
