/**
 * `GET /core/accounts` refusals (docs/behaviour.md#accounts): a missing or malformed
 * `customerId` → 400 naming `customerId`; a customerId the caller's platform has
 * not registered → 404 NotFound. Neither reaches the core.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertBadRequest,
  assertError,
  assertSuccess,
  formA,
  getAccounts,
  NOT_FOUND,
  postSession,
  uniqueId,
} from './gateway-requests.js';

for (const backend of BACKENDS) {
  describe(`GET /core/accounts 4xx (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    let registered: string;
    before(async () => {
      h = await createHarness(backend);
      token = await h.token(await h.client({ platform: 'accounts-4xx' }));
      registered = uniqueId('registered');
      assertSuccess(await postSession(h, { token }, formA(registered)));
    });
    after(() => h?.close());

    it('answers 400 naming customerId when it is missing, empty, repeated or malformed', async () => {
      const stats = h.services.simulator!.stats();
      const cases: Array<[string, string | string[] | undefined]> = [
        ['missing', undefined],
        ['empty', ''],
        ['repeated', [registered, registered]],
        ['with a space', 'a b'],
        ['over 128 characters', 'x'.repeat(129)],
        ['not ASCII', 'kündin'],
      ];
      for (const [why, customerId] of cases) {
        const body = assertBadRequest(await getAccounts(h, { token }, customerId), ['/customerId'], why); // a JSON Pointer
        if (typeof customerId === 'string' && customerId.length > 0)
          assert.equal(JSON.stringify(body).includes(customerId), false, `${why}: not echoed`);
      }
      const other = await h.app.inject({
        method: 'GET',
        url: '/core/accounts?customerid=x',
        headers: { authorization: `Bearer ${token}` },
      });
      assertBadRequest(other, ['/customerId'], 'the parameter name is case-sensitive');
      assert.deepEqual(h.services.simulator!.stats(), stats, 'the core was not called');
    });

    it('answers 404 NotFound to a customerId nobody registered', async () => {
      const stats = h.services.simulator!.stats();
      const response = await getAccounts(h, { token }, uniqueId('never-registered'));
      const body = assertError(response, NOT_FOUND);
      assert.deepEqual(
        { ...body.data, requestId: typeof body.data['requestId'] },
        { reason: 'customer_not_registered', requestId: 'string' },
      );
      assert.equal(response.headers['www-authenticate'], undefined);
      assert.deepEqual(h.services.simulator!.stats(), stats, 'the core was not called');
    });

    it('matches the customerId exactly: another case, a prefix or an extension of it are other customers', async () => {
      assertSuccess(await getAccounts(h, { token }, registered));
      for (const variant of [registered.toUpperCase(), `${registered}x`, registered.slice(0, -1)]) {
        assertError(await getAccounts(h, { token }, variant), NOT_FOUND, variant);
      }
    });

    it('answers 404 with the envelope to unknown paths below /core, without echoing them', async () => {
      const response = await h.app.inject({
        method: 'GET',
        url: '/core/accounts/123-45-6789',
        headers: { authorization: `Bearer ${token}` },
      });
      assertError(response, NOT_FOUND);
      assert.equal(response.body.includes('123-45-6789'), false);
    });
  });
}
