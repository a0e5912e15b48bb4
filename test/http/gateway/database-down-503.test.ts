/**
 * The database going away answers 503 Unavailable with Retry-After (CONTRACT §3),
 * never a 500, and the service recovers when the database comes back. PostgreSQL is
 * reached through a TCP relay the test can cut, as a network failure would.
 */
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PostgresDatabase } from '../../../src/adapters/store/postgres-database.js';
import type { Backend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { createFreshDatabase, postgresSkip } from '../../support/postgres.js';
import { assertError, assertSuccess, formA, getAccounts, postSession } from './gateway-requests.js';
import { postToken } from '../oauth/oauth-requests.js';

const UNAVAILABLE = { status: 503, name: 'Unavailable', className: 'unavailable' };

/** Relays 127.0.0.1:<port> to PostgreSQL until cut. */
class Relay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(5432, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

describe('the database goes away: 503 with Retry-After (postgres)', { skip: postgresSkip }, () => {
  const relay = new Relay();
  let drop: () => Promise<void>;
  let h: Harness;

  before(async () => {
    await relay.open();
    const fresh = await createFreshDatabase();
    drop = fresh.drop;
    const url = new URL(fresh.url);
    url.host = `127.0.0.1:${relay.port}`;
    const relayed: Backend = {
      name: 'postgres',
      skip: false,
      async open() {
        const database = new PostgresDatabase({ connectionString: url.toString(), poolMax: 4 });
        return { database, databaseUrl: url.toString(), close: () => database.close() };
      },
    };
    h = await createHarness(relayed);
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
