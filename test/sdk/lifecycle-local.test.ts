/**
 * What a running coregate cannot show yet or on demand, against a small local
 * node:http server that answers like coregate: `getCustomer` and
 * `deregisterCustomer` (docs/behaviour.md#deregistration), 429 with
 * `Retry-After`, the per-call timeout, the caller's `AbortSignal`, and a token
 * endpoint answering 503 for a moment.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CoregateClient, CoregateError, type CoregateClientOptions, type CustomerStatus } from '@coregate/client';
import { listenLocally } from '../support/local-server.js';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly authorization: string | undefined;
}

type Handler = (request: IncomingMessage, response: ServerResponse, seen: Seen) => void;

const CUSTOMER: CustomerStatus = {
  customerId: 'c 1/ü',
  customerKey: 'C-1001',
  status: 'active',
  registeredAt: '2026-11-23T12:00:00.000Z',
  updatedAt: '2026-11-23T12:00:00.000Z',
};

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

const success = (data: unknown) => ({ name: 'Success', className: 'Success', message: 'Success', data, code: 200 });
const notFound = { name: 'NotFound', className: 'not-found', message: 'no such customer', code: 404, data: {} };

describe('@coregate/client against a local stand-in for coregate', () => {
  let server: Server;
  let baseUrl: string;
  let stop: () => void;
  let seen: Seen[] = [];
  let tokens = 0;
  let core: Handler;
  let token: Handler;

  before(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url!, 'http://local');
      const entry: Seen = {
        method: request.method!,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authorization: request.headers.authorization,
      };
      seen.push(entry);
      request.resume();
      request.on('end', () => (url.pathname === '/oauth2/token' ? token : core)(request, response, entry));
    });
    ({ baseUrl, close: stop } = await listenLocally(server));
  });

  after(() => stop());

  beforeEach(() => {
    seen = [];
    tokens = 0;
    token = (_request, response) =>
      json(response, 200, { access_token: `token-${++tokens}`, token_type: 'Bearer', expires_in: 3600 });
    core = (_request, response, entry) => {
      if (entry.path !== '/core/sessions') return json(response, 404, notFound);
      if (entry.query['customerId'] !== CUSTOMER.customerId) return json(response, 404, notFound);
      if (entry.method === 'GET') return json(response, 200, success(CUSTOMER));
      if (entry.method === 'DELETE') return json(response, 200, success({ customerId: CUSTOMER.customerId }));
      return json(response, 405, {});
    };
  });

  const client = (options: Partial<CoregateClientOptions> = {}) =>
    new CoregateClient({ baseUrl, clientId: 'cg_local', clientSecret: 'cgs_local-secret', ...options });
  const calls = (path: string) => seen.filter((entry) => entry.path === path);

  it('getCustomer is GET /core/sessions?customerId= with the bearer token', async () => {
    assert.deepEqual(await client().getCustomer(CUSTOMER.customerId), CUSTOMER);
    const [call] = calls('/core/sessions');
    assert.equal(call?.method, 'GET');
    assert.deepEqual(call?.query, { customerId: CUSTOMER.customerId }, 'the customerId is query-encoded');
    assert.equal(call?.authorization, 'Bearer token-1');
  });

  it('deregisterCustomer is DELETE /core/sessions?customerId=', async () => {
    assert.deepEqual(await client().deregisterCustomer(CUSTOMER.customerId), { customerId: CUSTOMER.customerId });
    const [call] = calls('/core/sessions');
    assert.equal(call?.method, 'DELETE');
    assert.deepEqual(call?.query, { customerId: CUSTOMER.customerId });
  });

  it('an unknown customer is a 404 CoregateError for both', async () => {
    const cg = client();
    for (const operation of [() => cg.getCustomer('nobody'), () => cg.deregisterCustomer('nobody')]) {
      await assert.rejects(
        operation(),
        (error: unknown) =>
          error instanceof CoregateError &&
          error.status === 404 &&
          error.name === 'NotFound' &&
          error.className === 'not-found',
      );
    }
    assert.equal(tokens, 1);
  });

  it('a DELETE answered 502 is not retried; a GET is', async () => {
    core = (_request, response) =>
      json(response, 502, { name: 'BadGateway', className: 'bad-gateway', message: 'core down', code: 502, data: {} });
    const cg = client({ maxRetries: 2 });
    await assert.rejects(cg.deregisterCustomer(CUSTOMER.customerId), { status: 502 });
    assert.equal(calls('/core/sessions').length, 1);
    await assert.rejects(cg.getCustomer(CUSTOMER.customerId), { status: 502, name: 'BadGateway' });
    assert.equal(calls('/core/sessions').length, 4, 'the DELETE once, the GET three times');
  });

  it('429 with Retry-After is retried after the wait, even for a DELETE', async () => {
    const answered: number[] = [];
    const previous = core;
    core = (request, response, entry) => {
      answered.push(Date.now());
      if (answered.length === 1)
        return json(
          response,
          429,
          { name: 'TooManyRequests', className: 'too-many-requests', message: 'slow down', code: 429, data: {} },
          { 'retry-after': '1' },
        );
      previous(request, response, entry);
    };
    assert.deepEqual(await client().deregisterCustomer(CUSTOMER.customerId), { customerId: CUSTOMER.customerId });
    assert.equal(answered.length, 2);
    assert.ok(answered[1]! - answered[0]! >= 950, 'waited for Retry-After: 1');
  });

  it('a 429 beyond maxRetries is thrown with its envelope and retryAfterSeconds', async () => {
    core = (_request, response) =>
      json(
        response,
        429,
        {
          name: 'TooManyRequests',
          className: 'too-many-requests',
          message: 'slow down',
          code: 429,
          data: { retryAfter: 0 },
        },
        { 'retry-after': '0' },
      );
    const error = await client({ maxRetries: 2 })
      .getCustomer(CUSTOMER.customerId)
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof CoregateError);
    assert.equal(error.status, 429);
    assert.equal(error.className, 'too-many-requests');
    assert.deepEqual(error.data, { retryAfter: 0 });
    assert.equal(error.retryAfterSeconds, 0);
    assert.equal(calls('/core/sessions').length, 3);
  });

  it("a Retry-After that would outlast the call's timeout ends the call at once with that answer", async () => {
    core = (_request, response) =>
      json(
        response,
        503,
        { name: 'Unavailable', className: 'unavailable', message: 'later', code: 503, data: {} },
        { 'retry-after': '5' },
      );
    const started = Date.now();
    const error = await client({ timeoutMs: 2_000 })
      .getCustomer(CUSTOMER.customerId)
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof CoregateError, String(error));
    assert.equal(error.status, 503);
    assert.equal(error.retryAfterSeconds, 5);
    // Failed at once rather than after the 5 s Retry-After (any bound below it tells them apart).
    assert.ok(Date.now() - started < 4_000, 'no pointless wait');
    assert.equal(calls('/core/sessions').length, 1);
  });

  it('the token endpoint answering 503 temporarily_unavailable is retried after Retry-After', async () => {
    let refused = 0;
    const issue = token;
    token = (request, response, entry) => {
      if (refused++ === 0) return json(response, 503, { error: 'temporarily_unavailable' }, { 'retry-after': '0' });
      issue(request, response, entry);
    };
    assert.deepEqual(await client().getCustomer(CUSTOMER.customerId), CUSTOMER);
    assert.equal(calls('/oauth2/token').length, 2);
  });

  it('a call slower than timeoutMs fails with a Timeout CoregateError', async () => {
    core = () => undefined; // never answers
    const started = Date.now();
    const error = await client({ timeoutMs: 200 })
      .getCustomer(CUSTOMER.customerId)
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof CoregateError, String(error));
    assert.equal(error.status, 0);
    assert.equal(error.name, 'Timeout');
    assert.ok(Date.now() - started < 2_000);
    const perCall = await client()
      .getCustomer(CUSTOMER.customerId, { timeoutMs: 100 })
      .catch((caught: unknown) => caught);
    assert.ok(
      perCall instanceof CoregateError && perCall.name === 'Timeout',
      "the per-call timeout overrides the client's",
    );
  });

  it("the caller's AbortSignal cancels a call with the signal's reason", async () => {
    core = () => undefined;
    const controller = new AbortController();
    const reason = new Error('the user went away');
    setTimeout(() => controller.abort(reason), 50);
    await assert.rejects(
      client().getCustomer(CUSTOMER.customerId, { signal: controller.signal }),
      (error) => error === reason,
    );
    await assert.rejects(client().getCustomer(CUSTOMER.customerId, { signal: AbortSignal.abort() }), {
      name: 'AbortError',
    });
  });

  it('one caller giving up does not fail the others waiting for the same token', async () => {
    let release: () => void = () => undefined;
    let tokenAsked!: () => void;
    // Both callers wait on the one token request once it is at the stand-in (after 50 ms of
    // wall clock, as this once waited, it had not always arrived: release() then did nothing).
    const asked = new Promise<void>((resolve) => (tokenAsked = resolve));
    const issue = token;
    token = (request, response, entry) => {
      release = () => issue(request, response, entry);
      tokenAsked();
    };
    const cg = client();
    const controller = new AbortController();
    const impatient = cg.getCustomer(CUSTOMER.customerId, { signal: controller.signal });
    const patient = cg.getCustomer(CUSTOMER.customerId);
    await asked;
    controller.abort();
    await assert.rejects(impatient, { name: 'AbortError' });
    release();
    assert.deepEqual(await patient, CUSTOMER);
    assert.equal(tokens, 1);
  });
});
