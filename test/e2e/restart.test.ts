/**
 * Restarts: signing keys, clients and the encryption key live in the database (or
 * the data dir), so a token issued before a restart verifies against the JWKS of
 * the new process, on the embedded database and on PostgreSQL alike.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createFreshDatabase, postgresSkip } from '../support/postgres.js';
import {
  killAll,
  requestToken,
  runJson,
  startServer,
  tempDataDir,
  type CreatedClient,
  type Env,
} from './support/process.js';

after(killAll);

/** A fixed public issuer, as production configures it: the port changes between runs (PORT=0). */
const ISSUER = 'http://coregate.restart.test';

async function jwksKids(url: string): Promise<string[]> {
  const body = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
  return body.keys.map((key) => key.kid);
}

async function tokenSurvivesRestart(env: Env): Promise<void> {
  const first = await startServer(env);
  let second: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const client = await runJson<CreatedClient>(['clients', 'create', '--name', 'restart', '--json'], env);
    const issued = await requestToken(first.url, client);
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    const token = String(issued.body['access_token']);
    const kidsBefore = await jwksKids(first.url);
    assert.deepEqual(kidsBefore, [decodeProtectedHeader(token).kid]);
    assert.equal((await first.stop()).code, 0);

    second = await startServer(env);
    assert.deepEqual(await jwksKids(second.url), kidsBefore, 'the same signing key after the restart');
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${second.url}/.well-known/jwks.json`)), {
      issuer: ISSUER,
    });
    assert.equal(payload.sub, client.client_id);

    // The client and its secret survived too, and new tokens use the same key.
    const again = await requestToken(second.url, client);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(decodeProtectedHeader(String(again.body['access_token'])).kid, kidsBefore[0]);
    assert.equal((await second.stop()).code, 0);
  } finally {
    first.kill();
    second?.kill();
  }
}

describe('a token issued before a restart verifies after it', { timeout: 300_000 }, () => {
  it('on the embedded database', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    await tokenSurvivesRestart({ COREGATE_DATA_DIR: data.dir, COREGATE_ISSUER: ISSUER });
  });

  it('on PostgreSQL', { skip: postgresSkip }, async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const database = await createFreshDatabase();
    t.after(() => database.drop());
    await tokenSurvivesRestart({
      DATABASE_URL: database.url,
      COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      COREGATE_DATA_DIR: data.dir,
      COREGATE_ISSUER: ISSUER,
    });
  });
});
