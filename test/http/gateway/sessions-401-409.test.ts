/**
 * `POST /core/sessions` and `GET /core/accounts` refusals
 * (docs/behaviour.md#registration-outcomes): no bearer token → 401 with `WWW-Authenticate:
 * Bearer`; a bad token → 401 `invalid_token`; the core not recognising the customer → 401
 * NotAuthenticated WITHOUT a challenge (authentication to the third-party system failed); the
 * same customerId for another core customer → 409 Conflict, nothing changed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  ADA,
  assertError,
  assertSuccess,
  associationCount,
  associationRow,
  BOB,
  CONFLICT,
  formA,
  formB,
  getAccounts,
  NOT_AUTHENTICATED,
  postSession,
  uniqueId,
} from './gateway-requests.js';

for (const backend of BACKENDS) {
  describe(`gateway 401 and 409 (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    let platform: string;
    before(async () => {
      h = await createHarness(backend);
      const client = await h.client({ platform: 'refusals' });
      platform = client.platform;
      token = await h.token(client);
    });
    after(() => h?.close());

    it('answers 401 with `WWW-Authenticate: Bearer` to a request without a bearer token, on both routes', async () => {
      const customerId = uniqueId('no-token');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      const stats = h.services.simulator!.stats();
      const rows = await associationCount(h);
      for (const authorization of [undefined, '', `Basic ${Buffer.from('a:b').toString('base64')}`]) {
        const request = authorization === undefined ? {} : { authorization };
        for (const response of [
          await postSession(h, request, formA(uniqueId('no-token'))),
          await getAccounts(h, request, customerId),
        ]) {
          assertError(response, NOT_AUTHENTICATED, String(authorization));
          assert.equal(response.headers['www-authenticate'], 'Bearer');
        }
      }
      assert.deepEqual(h.services.simulator!.stats(), stats, 'the core was not called');
      assert.equal(await associationCount(h), rows, 'nothing stored');
    });

    it('answers 401 `invalid_token` to a bad or expired token, on both routes', async () => {
      const customerId = uniqueId('bad-token');
      assertSuccess(await postSession(h, { token }, formA(customerId)));
      for (const bad of ['not-a-jwt', `${token.slice(0, -3)}abc`]) {
        for (const response of [
          await postSession(h, { token: bad }, formA(uniqueId('bad-token'))),
          await getAccounts(h, { token: bad }, customerId),
        ]) {
          assertError(response, NOT_AUTHENTICATED, bad);
          assert.equal(response.headers['www-authenticate'], 'Bearer error="invalid_token"');
        }
      }
      const shortLived = await h.token(await h.client({ platform }));
      h.clock.advance(3601);
      try {
        const response = await getAccounts(h, { token: shortLived }, customerId);
        assertError(response, NOT_AUTHENTICATED, 'expired');
        assert.equal(response.headers['www-authenticate'], 'Bearer error="invalid_token"');
      } finally {
        token = await h.token(await h.client({ platform }));
      }
    });

    it('answers 403 Forbidden to a client called from outside its IP allow-list, on both routes', async () => {
      const fenced = await h.client({ platform, allowedIps: ['10.0.0.0/8'] });
      const fencedToken = await h.token(fenced);
      const customerId = uniqueId('fenced');
      const stats = h.services.simulator!.stats();
      const inject = (remoteAddress: string, method: 'GET' | 'POST') =>
        h.app.inject({
          method,
          url: method === 'GET' ? `/core/accounts?customerId=${customerId}` : '/core/sessions',
          headers: {
            authorization: `Bearer ${fencedToken}`,
            ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          },
          ...(method === 'POST' ? { payload: JSON.stringify(formA(customerId)) } : {}),
          remoteAddress,
        });
      for (const method of ['POST', 'GET'] as const) {
        const response = await inject('192.0.2.7', method);
        const body = assertError(response, { status: 403, name: 'Forbidden', className: 'forbidden' }, method);
        assert.match(body.message, /whitelist/i);
        // The caller is told which of its own addresses was seen (data.ip), and nothing else of the allow-list.
        assert.equal((body.data as { ip?: string }).ip, '192.0.2.7', 'the address seen is named');
        assert.equal(response.body.includes('10.0.0.0'), false, 'the allow-list is not echoed');
      }
      assert.deepEqual(h.services.simulator!.stats(), stats, 'the core was not called');
      assertSuccess(await inject('10.1.2.3', 'POST'), 'from inside the allow-list');
      assertSuccess(await inject('10.1.2.3', 'GET'), 'from inside the allow-list');
    });

    it('answers 401 NotAuthenticated without a challenge when the core does not recognise the customer, storing nothing', async () => {
      const unknown = [
        ['unknown SSN', formA(uniqueId('unknown'), { ...ADA, socialSecurityNumber: '111-22-3333' })],
        ['another customer’s account number', formA(uniqueId('unknown'), { ...ADA, accountNumber: BOB.accountNumber })],
        ['wrong birth date', formA(uniqueId('unknown'), { ...ADA, birthDay: '1980-04-13' })],
        ['unknown customer key', formB(uniqueId('unknown'), 'C-0000')],
      ] as const;
      const rows = await associationCount(h);
      for (const [why, body] of unknown) {
        const sessions = h.services.simulator!.stats().sessionsStarted;
        const response = await postSession(h, { token }, body);
        const envelope = assertError(response, NOT_AUTHENTICATED, why);
        assert.equal(
          response.headers['www-authenticate'],
          undefined,
          `${why}: the caller's token is fine, no challenge`,
        );
        assert.equal(envelope.data.reason, 'customer_not_recognised', why);
        assert.equal(h.services.simulator!.stats().sessionsStarted, sessions, why);
        for (const value of ['111-22-3333', '111223333', BOB.accountNumber, '1980-04-13']) {
          assert.equal(response.body.includes(value), false, `${why}: ${value} is not echoed`);
        }
      }
      assert.equal(await associationCount(h), rows, 'nothing stored');
    });

    it('answers 409 Conflict to the same customerId for another core customer, leaving the association unchanged', async () => {
      const customerId = uniqueId('taken');
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      const before = (await associationRow(h, platform, customerId))!;
      const accountsBefore = (await getAccounts(h, { token }, customerId)).body;
      const rows = await associationCount(h);
      for (const body of [
        formA(customerId, BOB),
        formA(customerId, BOB, { ssn: 'digits', birthDay: 'us' }),
        formB(customerId, BOB.customerKey),
      ]) {
        const response = await postSession(h, { token }, body);
        const envelope = assertError(response, CONFLICT, JSON.stringify(body));
        assert.equal(response.headers['www-authenticate'], undefined);
        for (const value of [BOB.customerKey, BOB.socialSecurityNumber, BOB.accountNumber, BOB.birthDay]) {
          assert.equal(response.body.includes(value), false, `${value} is not echoed`);
        }
        assert.equal(typeof envelope.message, 'string');
      }
      assert.deepEqual(
        await associationRow(h, platform, customerId),
        before,
        'the association is unchanged, its session included',
      );
      assert.equal(await associationCount(h), rows, 'nothing added');
      assert.equal(
        (await getAccounts(h, { token }, customerId)).body,
        accountsBefore,
        'still the first customer’s accounts',
      );
      // The first customer may still register again under it.
      assert.deepEqual(assertSuccess(await postSession(h, { token }, formB(customerId, ADA.customerKey))), {
        customerId,
        customerKey: ADA.customerKey,
      });
    });

    it('ends the core session a refused Form B registration started: no orphan session at the core', async () => {
      const customerId = uniqueId('taken-b');
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      const before = h.services.simulator!.stats();
      assertError(
        await postSession(h, { token }, formB(customerId, BOB.customerKey)),
        CONFLICT,
        'Form B for another core customer',
      );
      const after = h.services.simulator!.stats();
      assert.equal(
        after.sessionsStarted,
        before.sessionsStarted + 1,
        'the conflict is found by the statement that stores the association, after the core call',
      );
      assert.equal(after.activeSessions, before.activeSessions, 'the session it started is ended again');
    });

    it('lets exactly one of two core customers win a customerId registered for both at once', async () => {
      const customerId = uniqueId('race');
      const bodies = Array.from({ length: 10 }, (_, index) =>
        index % 2 ? formA(customerId, ADA) : formA(customerId, BOB),
      );
      const responses = await Promise.all(bodies.map((body) => postSession(h, { token }, body)));
      const row = (await associationRow(h, platform, customerId))!;
      const winner = row.customer_key;
      assert.ok(winner === ADA.customerKey || winner === BOB.customerKey);
      responses.forEach((response, index) => {
        const customerKey = index % 2 ? ADA.customerKey : BOB.customerKey;
        if (customerKey === winner)
          assert.deepEqual(assertSuccess(response), { customerId, customerKey }, `request ${index}`);
        else assertError(response, CONFLICT, `request ${index}`);
      });
      const accounts = assertSuccess<Array<{ customerKey: string }>>(await getAccounts(h, { token }, customerId));
      assert.ok(
        accounts.every((account) => account.customerKey === winner),
        'the winner’s accounts only',
      );
    });
  });
}
