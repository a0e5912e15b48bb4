/**
 * The token endpoint in the audit log (docs/behaviour.md#audit-log): one row per request —
 * `token.issued`, or `token.denied` with the OAuth error code answered as its
 * reason. A failed client authentication names the client only when such a
 * client exists; whatever else the caller typed as client_id is not stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { assertIssued, assertTokenError, postToken } from '../oauth/oauth-requests.js';
import { allAuditRows, assertAggregated, assertAudited, byClient, rowsOf } from './audit-rows.js';

const issued = (client: { id: string; platform: string }) => ({
  event_type: 'token.issued',
  outcome: 'success',
  reason: null,
  ...byClient(client),
  customer_id: null,
});
const denied = (reason: string, client: { id: string; platform: string } | null) => ({
  event_type: 'token.denied',
  outcome: 'failure',
  reason,
  ...byClient(client),
  customer_id: null,
});

for (const backend of BACKENDS) {
  describe(`token endpoint audit events (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    it('records token.issued for client_credentials and refresh_token grants', async () => {
      const client = await h.client({ platform: 'audit-token', grants: ['refresh_token'] });
      const first = await postToken(h, { client, body: { grant_type: 'client_credentials' } });
      const { refresh_token: refreshToken } = assertIssued(first);
      await assertAudited(h, first, [issued(client)], 'client_credentials');
      const refreshed = await postToken(h, {
        client,
        body: { grant_type: 'refresh_token', refresh_token: refreshToken! },
      });
      assertIssued(refreshed);
      await assertAudited(h, refreshed, [issued(client)], 'refresh_token');
    });

    it('keeps the caller’s request id', async () => {
      const client = await h.client();
      const response = await h.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: {
          authorization: basic(client.id, client.secret),
          'content-type': 'application/x-www-form-urlencoded',
          'x-request-id': 'audit-req-0001',
        },
        payload: 'grant_type=client_credentials',
      });
      assertIssued(response);
      const rows = await rowsOf(h, response);
      assert.deepEqual(
        rows.map((row) => row.request_id),
        ['audit-req-0001'],
      );
    });

    it('records token.denied invalid_client, naming only a client that exists', async () => {
      const client = await h.client({ platform: 'audit-denied' });
      const known = { id: client.id, platform: client.platform };

      const wrongSecret = await postToken(h, {
        client: { id: client.id, secret: `${client.secret}x` },
        body: { grant_type: 'client_credentials' },
      });
      assertTokenError(wrongSecret, 'invalid_client');
      await assertAudited(h, wrongSecret, [denied('invalid_client', known)], 'wrong secret of a known client');

      // An unknown caller's refusals are counted per address and minute, not one row each.
      const junkId = 'cg_junk SSN 123-45-6789';
      const unknown = await assertAggregated(
        h,
        () =>
          postToken(h, { client: { id: junkId, secret: client.secret }, body: { grant_type: 'client_credentials' } }),
        'token.denied',
        'invalid_client',
        'unknown client_id',
      );
      assertTokenError(unknown, 'invalid_client');

      const none = await assertAggregated(
        h,
        () => postToken(h, { authorization: null, body: { grant_type: 'client_credentials' } }),
        'token.denied',
        'invalid_client',
        'no credentials',
      );
      assertTokenError(none, 'invalid_client');

      const malformed = await assertAggregated(
        h,
        () => postToken(h, { authorization: 'Basic !!!', body: { grant_type: 'client_credentials' } }),
        'token.denied',
        'invalid_client',
        'malformed credentials',
      );
      assertTokenError(malformed, 'invalid_client');

      await h.services.clientRegistry.setEnabled(client.id, false);
      const disabled = await postToken(h, { client, body: { grant_type: 'client_credentials' } });
      assertTokenError(disabled, 'invalid_client');
      await assertAudited(h, disabled, [denied('invalid_client', known)], 'disabled client');

      assert.ok(!JSON.stringify(await allAuditRows(h)).includes('junk'), 'an unknown client_id is not stored');
    });

    it('records token.denied with each other OAuth error code, naming the authenticated client', async () => {
      const client = await h.client({ platform: 'audit-codes' });
      const cases: Array<[string, Record<string, string> | string]> = [
        ['invalid_request', { grant_type: 'client_credentials', client_secret: client.secret }],
        ['invalid_request', {}],
        ['invalid_request', `grant_type=client_credentials&pad=${'x'.repeat(20 * 1024)}`],
        ['unsupported_grant_type', { grant_type: 'password' }],
        ['unauthorized_client', { grant_type: 'authorization_code' }],
        ['unauthorized_client', { grant_type: 'refresh_token', refresh_token: 'cgr_nope' }],
        ['invalid_grant', { grant_type: 'refresh_token', refresh_token: 'cgr_unknown' }],
      ];
      const refreshing = await h.client({ platform: 'audit-codes', grants: ['refresh_token'] });
      for (const [code, body] of cases) {
        const who = code === 'invalid_grant' ? refreshing : client;
        const response = await postToken(h, { client: who, body });
        assertTokenError(
          response,
          code as never,
          `${code} ${typeof body === 'string' ? 'oversized body' : JSON.stringify(body)}`,
        );
        await assertAudited(h, response, [denied(code, { id: who.id, platform: who.platform })], code);
      }
    });

    it('writes nothing for a method the endpoint does not serve', async () => {
      const response = await h.app.inject({ method: 'GET', url: '/oauth2/token' });
      assert.equal(response.statusCode, 405);
      assert.deepEqual(await rowsOf(h, response), []);
    });
  });
}
