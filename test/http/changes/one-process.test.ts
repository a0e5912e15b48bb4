/**
 * The change feed in one process, on both backends
 * (docs/behaviour.md#changes-across-processes): while it is live the token endpoint reads a
 * client once rather than on every request, and a change — disabled, secret rotated,
 * institution disabled — still takes effect at once, at the token endpoint and at the bearer
 * check, without waiting for any cache lifetime.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminOperations } from '../../../src/server/admin-operations.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, protectedTestRoute, type Harness } from '../../support/harness.js';
import { getProtected } from '../bearer/bearer-responses.js';
import { clientCredentials, postToken, type TestClient } from '../oauth/oauth-requests.js';
import { arrivesWithin, changeDelivered, countingClientReads, type CountedBackend } from './change-support.js';

const CHANGE_ARRIVES_MS = 1000;

for (const plain of BACKENDS) {
  describe(`change feed in one process (${plain.name})`, { skip: plain.skip, timeout: 60_000 }, () => {
    let backend: CountedBackend;
    let h: Harness;
    let admin: ReturnType<typeof adminOperations>;
    before(async () => {
      backend = countingClientReads(plain);
      h = await createHarness(backend, { routes: protectedTestRoute() });
      admin = adminOperations(h.services);
      assert.equal(h.services.changeFeed?.live, true, 'live once the services are created');
    });
    after(() => h?.close());

    const tokenStatus = async (client: TestClient) =>
      (await postToken(h, { client, body: { grant_type: 'client_credentials' } })).statusCode;
    const bearerStatus = async (token: string) => (await getProtected(h, { token })).statusCode;

    it('reads a client once for many token requests while the feed is live (the database read every time before)', async () => {
      // The announcement of its creation arrives after the write (PostgreSQL): wait for it, so that
      // it has dropped whatever the first token request would cache before the count starts.
      const announced = changeDelivered(h.services.changeFeed, (change) => change.kind === 'client');
      const client = await h.client();
      await announced;
      await clientCredentials(h, client);
      const before = backend.clientReads();
      for (let i = 0; i < 20; i += 1) await clientCredentials(h, client);
      assert.equal(backend.clientReads() - before, 0, 'no client read: the cached record answered');
    });

    it('a disabled client is refused at the token endpoint and its tokens at the bearer check at once, no cache lifetime waited for', async () => {
      const client = await h.client();
      const { access_token: token } = await clientCredentials(h, client);
      assert.equal(await bearerStatus(token), 200);
      await admin['clients.set-enabled']({ id: client.id, enabled: false });
      await arrivesWithin(CHANGE_ARRIVES_MS, 'token endpoint', async () => (await tokenStatus(client)) === 400);
      await arrivesWithin(CHANGE_ARRIVES_MS, 'bearer check', async () => (await bearerStatus(token)) === 401);
      await admin['clients.set-enabled']({ id: client.id, enabled: true });
      await arrivesWithin(
        CHANGE_ARRIVES_MS,
        'enabled again',
        async () => (await tokenStatus(client)) === 200 && (await bearerStatus(token)) === 200,
      );
    });

    it('a rotated secret (no grace) stops working at once; the new one works', async () => {
      const client = await h.client();
      await clientCredentials(h, client);
      const { secret } = await admin['clients.rotate-secret']({ id: client.id });
      await arrivesWithin(CHANGE_ARRIVES_MS, 'old secret refused', async () => (await tokenStatus(client)) === 400);
      assert.equal(await tokenStatus({ id: client.id, secret }), 200);
    });

    it('a deleted client is refused at once', async () => {
      const client = await h.client();
      const { access_token: token } = await clientCredentials(h, client);
      await admin['clients.delete']({ id: client.id });
      await arrivesWithin(
        CHANGE_ARRIVES_MS,
        'deleted',
        async () => (await tokenStatus(client)) === 400 && (await bearerStatus(token)) === 401,
      );
    });

    it('a client of an institution disabled is refused at once, and served again once it is enabled', async () => {
      await admin['institutions.add']({ id: 'bank-feed', name: 'Bank Feed', coreUrl: 'http://127.0.0.1:9/' });
      const client = await h.client({ institution: 'bank-feed' });
      await clientCredentials(h, client);
      // Through the store, not the admin use case: only the feed tells the registry.
      await h.services.database.query(`update institutions set enabled = false where id = 'bank-feed'`);
      await arrivesWithin(CHANGE_ARRIVES_MS, 'institution disabled', async () => (await tokenStatus(client)) === 400);
      await h.services.database.query(`update institutions set enabled = true where id = 'bank-feed'`);
      await arrivesWithin(CHANGE_ARRIVES_MS, 'institution enabled', async () => (await tokenStatus(client)) === 200);
    });

    it('a change written by hand in SQL is announced too (the database sends it, not the use case)', async () => {
      const client = await h.client();
      await clientCredentials(h, client);
      await h.services.database.query('update clients set enabled = false where id = $1', [client.id]);
      await arrivesWithin(CHANGE_ARRIVES_MS, 'disabled by hand', async () => (await tokenStatus(client)) === 400);
    });
  });
}
