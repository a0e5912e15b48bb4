/**
 * The database going away answers 503 Unavailable with Retry-After
 * (docs/behaviour.md#upstream-failures), never a 500, and the service recovers when the
 * database comes back. PostgreSQL is reached through a TCP relay the test can cut, as a network
 * failure would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../../support/harness.js';
import { postgresSkip } from '../../support/postgres.js';
import { PostgresRelay, relayedBackend } from '../../support/postgres-relay.js';
import { assertError, assertSuccess, formA, getAccounts, postSession } from './gateway-requests.js';
import { postToken } from '../oauth/oauth-requests.js';

const UNAVAILABLE = { status: 503, name: 'Unavailable', className: 'unavailable' };

describe('the database goes away: 503 with Retry-After (postgres)', { skip: postgresSkip }, () => {
  const relay = new PostgresRelay();
  let drop: () => Promise<void>;
  let h: Harness;

  before(async () => {
    await relay.open();
    const relayed = await relayedBackend(relay);
    drop = relayed.drop;
    h = await createHarness(relayed.backend);
  });
  after(async () => {
    await h?.close();
    await relay.cut();
    await drop?.();
  });

  it('answers the gateway with Unavailable and the token endpoint with temporarily_unavailable, then recovers', async () => {
    const client = await h.client();
    const token = await h.token(client);
    assertSuccess(await postSession(h, { token }, formA('db-down-1')));

    await relay.cut();
    const accounts = await getAccounts(h, { token }, 'db-down-1');
    assertError(accounts, UNAVAILABLE, 'accounts while the database is down');
    assert.equal(accounts.headers['retry-after'], '5');

    const tokenResponse = await postToken(h, { client, body: { grant_type: 'client_credentials' } });
    assert.equal(tokenResponse.statusCode, 503, tokenResponse.body);
    assert.deepEqual(tokenResponse.json(), { error: 'temporarily_unavailable' });
    assert.equal(tokenResponse.headers['retry-after'], '5');

    await relay.open();
    assertSuccess(await getAccounts(h, { token }, 'db-down-1'), 'after the database is back');
  });
});
