/**
 * Rotating COREGATE_ENCRYPTION_KEY: with the old key in COREGATE_PREVIOUS_ENCRYPTION_KEYS
 * a restarted installation still authenticates its clients, signs with its stored key
 * and reads its sealed delegate reference IDs; new values are sealed with the new key.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { PostgresDatabase } from '../../../src/adapters/store/postgres-database.js';
import type { Backend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { createFreshDatabase, postgresSkip, type FreshDatabase } from '../../support/postgres.js';
import { assertSuccess, formA, getAccounts, postSession } from '../gateway/gateway-requests.js';

function sameDatabase(url: string): Backend {
  return {
    name: 'postgres',
    skip: false,
    async open() {
      const database = new PostgresDatabase({ connectionString: url, poolMax: 4 });
      return { database, databaseUrl: url, close: () => database.close() };
    },
  };
}

describe('encryption key rotation (postgres)', { skip: postgresSkip }, () => {
  let fresh: FreshDatabase;
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const opened: Harness[] = [];

  before(async () => {
    fresh = await createFreshDatabase();
  });
  after(async () => {
    for (const h of opened) await h.close();
    await fresh?.drop();
  });

  it('keeps clients, signing keys and associations usable with the previous key listed', async () => {
    const before = await createHarness(sameDatabase(fresh.url), { env: { COREGATE_ENCRYPTION_KEY: oldKey } });
    opened.push(before);
    const client = await before.client();
    assertSuccess(await postSession(before, { token: await before.token(client) }, formA('rotated-1')));
    const [{ kid: oldKid }] = (await before.services.keyring.jwks()).keys as [{ kid: string }];
    const keyIds = async (h: Harness) =>
      (await h.services.database.query<{ delegate_key_id: string }>('select distinct delegate_key_id from associations')).map((row) => row.delegate_key_id);
    const [oldKeyId] = await keyIds(before);

    const rotated = await createHarness(sameDatabase(fresh.url), {
      env: { COREGATE_ENCRYPTION_KEY: newKey, COREGATE_PREVIOUS_ENCRYPTION_KEYS: oldKey },
    });
    opened.push(rotated);
    const token = await rotated.token(client);
    assert.equal(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid, oldKid, 'the stored signing key still signs');
    // The old seal must open before the call reaches the core (this harness has a new
    // simulator, which rejects the ID; coregate renews and still answers 200).
    assertSuccess(await getAccounts(rotated, { token }, 'rotated-1'), 'a delegate reference ID sealed with the old key');
    assertSuccess(await postSession(rotated, { token }, formA('rotated-2')));
    const after = await keyIds(rotated);
    assert.equal(after.length, 1, 'the renewed and the new association are sealed with one key');
    assert.notEqual(after[0], oldKeyId, 'that key is the new one');
  });

  it('cannot open old values without the previous key', async () => {
    const lost = await createHarness(sameDatabase(fresh.url), { env: { COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
    opened.push(lost);
    await assert.rejects(lost.services.keyring.jwks().then(() => lost.services.keyring.sign({} as never)));
  });
});
