/**
 * Rotating COREGATE_ENCRYPTION_KEY: with the old key in COREGATE_PREVIOUS_ENCRYPTION_KEYS
 * a restarted installation still authenticates its clients, signs with its stored key
 * and reads its sealed delegate reference IDs; new values are sealed with the new key.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { encryptionKey } from '../../../src/adapters/crypto/encryption-keys.js';
import { PostgresDatabase } from '../../../src/adapters/store/postgres-database.js';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { createServices } from '../../../src/server/services.js';
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
      (
        await h.services.database.query<{ delegate_key_id: string }>(
          'select distinct delegate_key_id from associations',
        )
      ).map((row) => row.delegate_key_id);
    const [oldKeyId] = await keyIds(before);

    const rotated = await createHarness(sameDatabase(fresh.url), {
      env: { COREGATE_ENCRYPTION_KEY: newKey, COREGATE_PREVIOUS_ENCRYPTION_KEYS: oldKey },
    });
    opened.push(rotated);
    const token = await rotated.token(client);
    assert.equal(
      JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid,
      oldKid,
      'the stored signing key still signs',
    );
    // The old seal must open before the call reaches the core (this harness has a new
    // simulator, which rejects the ID; coregate renews and still answers 200).
    assertSuccess(
      await getAccounts(rotated, { token }, 'rotated-1'),
      'a delegate reference ID sealed with the old key',
    );
    assertSuccess(await postSession(rotated, { token }, formA('rotated-2')));
    const after = await keyIds(rotated);
    assert.equal(after.length, 1, 'the renewed and the new association are sealed with one key');
    assert.notEqual(after[0], oldKeyId, 'that key is the new one');
  });

  it('refuses to start without a key that opens the stored data, naming the variable and the key id it needs', async () => {
    const { database } = await sameDatabase(fresh.url).open();
    try {
      const config = loadConfig({
        DATABASE_URL: fresh.url,
        COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        LOG_LEVEL: 'silent',
      });
      // The stored signing key is still sealed with the first key (a rotation re-seals nothing).
      const neededId = encryptionKey(Buffer.from(oldKey, 'base64')).id;
      await assert.rejects(createServices(config, { logger: pino({ level: 'silent' }), database }), (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /^invalid configuration: COREGATE_ENCRYPTION_KEY does not open the stored data/);
        assert.ok(error.message.includes(neededId), error.message);
        assert.match(error.message, /COREGATE_PREVIOUS_ENCRYPTION_KEYS/);
        assert.doesNotMatch(error.message, /\n/, 'one line');
        return true;
      });
    } finally {
      await database.close();
    }
  });
});
