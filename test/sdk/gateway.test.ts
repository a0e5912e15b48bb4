/**
 * `CoregateClient` against a real coregate listening on a socket (the test
 * harness's app, its clock under the test's control): registration and accounts
 * with no token code, one token request for many (concurrent) calls, renewal
 * before `expires_in`, one transparent retry on 401 `invalid_token`, and the
 * envelope and OAuth errors as `CoregateError` — without the secret in any of them.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { ACCOUNT_RECORD_FIELDS, CoregateClient, CoregateError, type CoregateClientOptions } from '@coregate/client';
import { QUICKEST_BACKEND } from '../support/backends.js';
import { createHarness, type Harness } from '../support/harness.js';
import { countingFetch, type CountingFetch } from './counting-fetch.js';

const TTL_SECONDS = 60;

describe('@coregate/client against a running coregate', { skip: QUICKEST_BACKEND.skip, timeout: 60_000 }, () => {
  let harness: Harness;
  let baseUrl: string;
  let credentials: { id: string; secret: string };

  before(async () => {
    harness = await createHarness(QUICKEST_BACKEND, {
      env: { COREGATE_ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) },
    });
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(harness.app.server.address() as AddressInfo).port}`;
    credentials = await harness.client({ platform: 'sdk-platform' });
  });

  after(() => harness?.close());

  function client(counter: CountingFetch, options: Partial<CoregateClientOptions> = {}): CoregateClient {
    return new CoregateClient({
      baseUrl,
      clientId: credentials.id,
      clientSecret: credentials.secret,
      fetch: counter.fetch,
      ...options,
    });
  }

  it('registers a customer (both forms) and lists typed accounts, with no token code of its own', async () => {
    const cg = new CoregateClient({ baseUrl, clientId: credentials.id, clientSecret: credentials.secret });
    assert.deepEqual(await cg.registerCustomer({ customerId: 'sdk-ada', customer: { customerKey: 'C-1001' } }), {
      customerId: 'sdk-ada',
      customerKey: 'C-1001',
    });
    assert.deepEqual(
      await cg.registerCustomer({
        customerId: 'sdk-ada-2',
        demographics: { socialSecurityNumber: '123-45-6789', accountNumber: '70001234', birthDay: '04/12/1980' },
      }),
      { customerId: 'sdk-ada-2', customerKey: 'C-1001' },
    );
    const accounts = await cg.listAccounts('sdk-ada');
    assert.equal(accounts.length, 3);
    for (const account of accounts) {
      assert.deepEqual(Object.keys(account).sort(), Object.keys(ACCOUNT_RECORD_FIELDS).sort());
      for (const [field, kind] of Object.entries(ACCOUNT_RECORD_FIELDS))
        assert.equal(typeof account[field as keyof typeof account], kind, field);
    }
    assert.equal(accounts[0]!.customerKey, 'C-1001');
    await cg.registerCustomer({ customerId: 'sdk-eve', customer: { customerKey: 'C-1005' } });
    assert.deepEqual(await cg.listAccounts('sdk-eve'), []);
  });

  it('20 parallel calls on a fresh client share one token request, and later calls reuse the token', async () => {
    const counter = countingFetch();
    const cg = client(counter);
    const answers = await Promise.all(Array.from({ length: 20 }, () => cg.listAccounts('sdk-ada')));
    assert.ok(answers.every((accounts) => accounts.length === 3));
    assert.equal(counter.count('/oauth2/token'), 1, 'one token request for 20 concurrent calls');
    for (let index = 0; index < 5; index++) await cg.listAccounts('sdk-ada');
    assert.equal(counter.count('/oauth2/token'), 1, 'still one token request');
    assert.equal(counter.count('/core/accounts'), 25);
  });

  it('renews the token shortly before expires_in, without a 401', async () => {
    const counter = countingFetch();
    // The client reads the server's clock, so moving it moves both.
    const cg = client(counter, { now: () => harness.clock.now().getTime() });
    await cg.listAccounts('sdk-ada');
    harness.clock.advance(TTL_SECONDS - 10);
    await cg.listAccounts('sdk-ada');
    assert.equal(counter.count('/oauth2/token'), 1, 'the token is reused while far from expiry');
    harness.clock.advance(5);
    await Promise.all([cg.listAccounts('sdk-ada'), cg.listAccounts('sdk-ada'), cg.listAccounts('sdk-ada')]);
    assert.equal(counter.count('/oauth2/token'), 2, 'one renewal 5 s before expiry (10 % of a 60 s token), shared');
    assert.equal(counter.count('/core/accounts', 401), 0, 'renewed before the server refused it');
  });

  it('a token the server no longer accepts is replaced once, transparently', async () => {
    const counter = countingFetch();
    const cg = client(counter);
    await cg.listAccounts('sdk-ada');
    // The server's clock passes the token's expiry; the client's own clock does not.
    harness.clock.advance(TTL_SECONDS + 1);
    const accounts = await Promise.all([cg.listAccounts('sdk-ada'), cg.listAccounts('sdk-ada')]);
    assert.equal(accounts[0].length, 3);
    assert.equal(counter.count('/core/accounts', 401), 2, 'both calls met the expired token');
    assert.equal(counter.count('/oauth2/token'), 2, 'one fresh token for both');
    assert.equal(counter.count('/core/accounts', 200), 3);
  });

  it('maps envelope errors to CoregateError, without retrying them', async () => {
    const counter = countingFetch();
    const cg = client(counter);
    const notFound = await cg.listAccounts('sdk-nobody').catch((error: unknown) => error);
    assert.ok(notFound instanceof CoregateError);
    assert.equal(notFound.status, 404);
    assert.equal(notFound.name, 'NotFound');
    assert.equal(notFound.className, 'not-found');
    assert.equal(typeof notFound.message, 'string');
    assert.deepEqual(
      { ...notFound.data, requestId: typeof notFound.data['requestId'] },
      { reason: 'customer_not_registered', requestId: 'string' },
    );
    assert.equal(counter.count('/core/accounts'), 1, 'a 404 is not retried');

    const badBody = await cg
      .registerCustomer({
        customerId: 'sdk-bad',
        demographics: { socialSecurityNumber: '12-34', accountNumber: '70001234', birthDay: '2999-01-01' },
      })
      .catch((error: unknown) => error);
    assert.ok(badBody instanceof CoregateError);
    assert.equal(badBody.status, 400);
    assert.equal(badBody.name, 'BadRequest');
    assert.equal(badBody.className, 'bad-request');
    const paths = (badBody.data['errors'] as Array<{ path: string }>).map((error) => error.path).join(' ');
    assert.match(paths, /socialSecurityNumber/);
    assert.match(paths, /birthDay/);

    const conflict = await cg
      .registerCustomer({ customerId: 'sdk-ada', customer: { customerKey: 'C-1002' } })
      .catch((error: unknown) => error);
    assert.ok(conflict instanceof CoregateError);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.name, 'Conflict');
    assert.equal(counter.count('/core/sessions'), 2);
  });

  it('a wrong secret is a CoregateError with error invalid_client, and the secret shows nowhere', async () => {
    const wrongSecret = `${credentials.secret.slice(0, -4)}XXXX`;
    const counter = countingFetch();
    const cg = client(counter, { clientSecret: wrongSecret });
    const error = await cg.listAccounts('sdk-ada').catch((caught: unknown) => caught);
    assert.ok(error instanceof CoregateError);
    assert.equal(error.status, 400);
    assert.equal(error.error, 'invalid_client');
    assert.equal(counter.count('/oauth2/token'), 1, 'an OAuth refusal is not retried');
    assert.equal(counter.count('/core/accounts'), 0);
    const basic = Buffer.from(`${credentials.id}:${wrongSecret}`).toString('base64');
    for (const [what, text] of [
      ['message', error.message],
      ['stack', String(error.stack)],
      ['inspect(error)', inspect(error, { depth: 10, showHidden: true })],
      ['JSON of error', JSON.stringify(error)],
      ['inspect(client)', inspect(cg, { depth: 10, showHidden: true })],
      ['JSON of client', JSON.stringify(cg)],
    ] as const) {
      assert.ok(!text.includes(wrongSecret), `${what} holds the secret`);
      assert.ok(!text.includes(basic), `${what} holds the Basic credentials`);
    }

    // A working client's errors and the client itself show neither the secret nor an access token (a JWT starts "eyJ").
    const good = client(countingFetch());
    const notFound = await good.listAccounts('sdk-nobody').catch((caught: unknown) => caught);
    for (const [what, text] of [
      ['inspect(error)', inspect(notFound, { depth: 10, showHidden: true })],
      ['inspect(client)', inspect(good, { depth: 10, showHidden: true })],
    ] as const) {
      assert.ok(!text.includes(credentials.secret), `${what} holds the secret`);
      assert.ok(!text.includes('eyJ'), `${what} holds an access token`);
    }
  });
});
