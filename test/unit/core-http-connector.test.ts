/**
 * The HTTP connector against a core that misbehaves: every answer outside the
 * protocol becomes a typed failure, and nothing secret ends up in a message.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Agent, Pool } from 'undici';
import {
  CoreProtocolError,
  CoreUnavailable,
  CustomerNotRecognised,
  SessionRejected,
} from '../../src/ports/core-connector.js';
import { HttpCoreConnector } from '../../src/adapters/core/http-core-connector.js';
import { DEMO_CUSTOMERS } from '../../src/fakes/core-simulator/demo-data.js';
import type { RegistrationSubject } from '../../src/domain/registration.js';

interface Scripted {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

const ctx = { requestId: 'req-42' };
const API_KEY = 'k-secret-institution-key';
const DELEGATE = 'Zm9vYmFyLWRlbGVnYXRlLXJlZmVyZW5jZQ';
const subject: RegistrationSubject = {
  kind: 'demographics',
  socialSecurityNumber: '123456789',
  accountNumber: '70001234',
  birthDay: '1980-04-12',
};
const goodAccount = DEMO_CUSTOMERS[0]!.accounts[0]!;

describe('HttpCoreConnector against a misbehaving core', () => {
  let server: Server;
  let url: string;
  let next: Scripted;
  let seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  let connector: HttpCoreConnector;

  const answer = (status: number, body: unknown, headers?: Record<string, string>) => {
    next = { status, body: typeof body === 'string' ? body : JSON.stringify(body), ...(headers ? { headers } : {}) };
  };
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => assert.fail('expected a failure'),
      (error: unknown) => error as Error,
    );
  const assertNoSecrets = (error: Error) => {
    for (const secret of [API_KEY, DELEGATE, '123456789', '70001234', '1980-04-12'])
      assert.ok(!error.message.includes(secret), `"${error.message}" leaks a secret`);
  };

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
        res.end(next.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    connector = new HttpCoreConnector({
      baseUrl: `${url}/bank/adapter/`,
      apiKey: API_KEY,
      timeoutMs: 1000,
      connections: 2,
    });
  });
  after(async () => {
    await connector?.close();
    server?.close();
  });
  beforeEach(() => {
    seen = [];
  });

  it('ends a session with DELETE /v1/sessions; 404, 405, 501 and 401 session_invalid count as ended, 5xx fails', async () => {
    for (const [status, body] of [
      [204, ''],
      [200, {}],
      [404, { error: 'not_found' }],
      [405, { error: 'method_not_allowed' }],
      [501, 'Not Implemented'],
      [401, { error: 'session_invalid' }],
    ] as const) {
      answer(status, body);
      await connector.endSession(DELEGATE, ctx);
    }
    const [request] = seen;
    assert.equal(request!.method, 'DELETE');
    assert.equal(request!.url, '/bank/adapter/v1/sessions');
    assert.equal(request!.headers['x-delegate-reference-id'], DELEGATE);
    answer(503, { error: 'core_failure' });
    const error = await failure(connector.endSession(DELEGATE, ctx));
    assert.ok(error instanceof CoreUnavailable, String(error));
    assertNoSecrets(error);
    answer(400, { error: 'invalid_request' });
    assert.ok((await failure(connector.endSession(DELEGATE, ctx))) instanceof CoreProtocolError);
  });

  it('sends the protocol request below the base path, with API key, request ID and JSON body', async () => {
    answer(201, {
      customerKey: 'C-1001',
      delegateReferenceId: DELEGATE,
      expiresAt: '2026-03-01T12:15:00.1234567Z',
      extra: 'ignored',
    });
    const session = await connector.startSession(subject, ctx);
    assert.deepEqual(session, {
      customerKey: 'C-1001',
      delegateReferenceId: DELEGATE,
      expiresAt: new Date('2026-03-01T12:15:00.123Z'),
    });
    const [request] = seen;
    assert.equal(request!.method, 'POST');
    assert.equal(request!.url, '/bank/adapter/v1/sessions');
    assert.equal(request!.headers['x-api-key'], API_KEY);
    assert.equal(request!.headers['x-request-id'], 'req-42');
    assert.match(String(request!.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(request!.body), {
      demographics: { socialSecurityNumber: '123456789', accountNumber: '70001234', birthDay: '1980-04-12' },
    });

    answer(200, { customerKey: 'C-1002', delegateReferenceId: DELEGATE, expiresAt: '2026-03-01T13:15:00+01:00' });
    const byKey = await connector.startSession({ kind: 'customerKey', customerKey: 'C-1002' }, ctx);
    assert.equal(byKey.expiresAt.toISOString(), '2026-03-01T12:15:00.000Z');
    assert.deepEqual(JSON.parse(seen[1]!.body), { customerKey: 'C-1002' });
  });

  it('sends the delegate reference ID in its header and keeps only the spec fields of accounts', async () => {
    answer(200, { accounts: [{ ...goodAccount, internalRiskScore: 7 }] });
    const accounts = await connector.listAccounts(DELEGATE, ctx);
    assert.deepEqual(accounts, [goodAccount]);
    assert.equal(seen[0]!.method, 'GET');
    assert.equal(seen[0]!.url, '/bank/adapter/v1/accounts');
    assert.equal(seen[0]!.headers['x-delegate-reference-id'], DELEGATE);
  });

  it('maps the protocol errors to the typed failures', async () => {
    answer(404, { error: 'customer_not_found', message: 'no' });
    assert.ok((await failure(connector.startSession(subject, ctx))) instanceof CustomerNotRecognised);
    answer(401, { error: 'session_invalid', message: 'no' });
    assert.ok((await failure(connector.listAccounts(DELEGATE, ctx))) instanceof SessionRejected);
    // The right status without the right code is not the protocol.
    answer(404, { error: 'not_found' });
    assert.ok((await failure(connector.startSession(subject, ctx))) instanceof CoreProtocolError);
    answer(401, '<html>login</html>', { 'content-type': 'text/html' });
    assert.ok((await failure(connector.listAccounts(DELEGATE, ctx))) instanceof CoreProtocolError);
    answer(401, { error: 'session_invalid' });
    assert.ok(
      (await failure(connector.startSession(subject, ctx))) instanceof CoreProtocolError,
      'session_invalid means nothing for a new session',
    );
  });

  it('reports a refused API key as a protocol error that points at the configuration, without the key', async () => {
    answer(403, { error: 'api_key_invalid', message: `bad key ${API_KEY}` });
    const error = await failure(connector.listAccounts(DELEGATE, ctx));
    assert.ok(error instanceof CoreProtocolError);
    assert.match(error.message, /COREGATE_CORE_API_KEY/);
    assertNoSecrets(error);
  });

  it('treats 5xx, with or without a JSON body, as CoreUnavailable', async () => {
    for (const [status, body] of [
      [500, { error: 'core_failure' }],
      [502, '<html>Bad Gateway</html>'],
      [503, ''],
    ] as const) {
      answer(status, body);
      const listing = await failure(connector.listAccounts(DELEGATE, ctx));
      assert.ok(listing instanceof CoreUnavailable, `${status}`);
      assert.equal(listing.retrySafe, true);
      const starting = await failure(connector.startSession(subject, ctx));
      assert.ok(starting instanceof CoreUnavailable);
      assert.equal(starting.retrySafe, false);
      assertNoSecrets(listing);
      assertNoSecrets(starting);
    }
  });

  it('rejects answers that break the protocol with CoreProtocolError naming the field', async () => {
    const missing: Record<string, unknown> = { ...goodAccount };
    delete missing.guid;
    const cases: [() => Promise<unknown>, Scripted, RegExp][] = [
      [
        () => connector.listAccounts(DELEGATE, ctx),
        { status: 200, body: JSON.stringify({ accounts: [goodAccount, missing] }) },
        /accounts\[1\]\.guid: missing/,
      ],
      [
        () => connector.listAccounts(DELEGATE, ctx),
        { status: 200, body: JSON.stringify({ accounts: [{ ...goodAccount, currentBalance: '12.00' }] }) },
        /accounts\[0\]\.currentBalance: expected a number, got a string/,
      ],
      [
        () => connector.listAccounts(DELEGATE, ctx),
        { status: 200, body: JSON.stringify({ accounts: [{ ...goodAccount, hasCard: 'Y' }] }) },
        /hasCard: expected a boolean/,
      ],
      [
        () => connector.listAccounts(DELEGATE, ctx),
        { status: 200, body: JSON.stringify({ accounts: [{ ...goodAccount, maturityDate: null }] }) },
        /maturityDate: expected a date-time string, got null/,
      ],
      [
        () => connector.listAccounts(DELEGATE, ctx),
        { status: 200, body: JSON.stringify([goodAccount]) },
        /expected \{"accounts": \[\.\.\.\]\}, got an array/,
      ],
      [() => connector.listAccounts(DELEGATE, ctx), { status: 200, body: 'not json' }, /not JSON/],
      [() => connector.listAccounts(DELEGATE, ctx), { status: 204, body: '' }, /unexpected answer 204/],
      [
        () => connector.listAccounts(DELEGATE, ctx),
        { status: 418, body: JSON.stringify({ error: 'teapot' }) },
        /unexpected answer 418 \(teapot\)/,
      ],
      [
        () => connector.startSession(subject, ctx),
        {
          status: 201,
          body: JSON.stringify({ customerKey: 'C-1', delegateReferenceId: DELEGATE, expiresAt: '2026-03-01T12:15:00' }),
        },
        /expiresAt: expected an ISO 8601 date-time with a zone/,
      ],
      [
        () => connector.startSession(subject, ctx),
        {
          status: 201,
          body: JSON.stringify({
            customerKey: 'C-1',
            delegateReferenceId: 'has spaces in it',
            expiresAt: '2026-03-01T12:15:00Z',
          }),
        },
        /delegateReferenceId: expected 1 to 1024 visible ASCII/,
      ],
      [
        () => connector.startSession(subject, ctx),
        { status: 201, body: JSON.stringify({ delegateReferenceId: DELEGATE, expiresAt: '2026-03-01T12:15:00Z' }) },
        /customerKey: expected 1 to 128 visible ASCII characters, got undefined/,
      ],
      [
        () => connector.startSession(subject, ctx),
        {
          status: 201,
          body: JSON.stringify({
            customerKey: 'C 1 with spaces',
            delegateReferenceId: DELEGATE,
            expiresAt: '2026-03-01T12:15:00Z',
          }),
        },
        /customerKey: expected 1 to 128 visible ASCII characters/,
      ],
      [
        () => connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx),
        {
          status: 201,
          body: JSON.stringify({
            customerKey: 'C-1002',
            delegateReferenceId: DELEGATE,
            expiresAt: '2026-03-01T12:15:00Z',
          }),
        },
        /different customerKey/,
      ],
      [() => connector.startSession(subject, ctx), { status: 201, body: '"ok"' }, /is a string, not an object/],
    ];
    for (const [call, scripted, message] of cases) {
      next = scripted;
      const error = await failure(call());
      assert.ok(error instanceof CoreProtocolError, `${scripted.body.slice(0, 80)} → ${error}`);
      assert.match(error.message, message);
      assertNoSecrets(error);
    }
  });

  it('refuses an answer larger than the limit', async () => {
    const small = new HttpCoreConnector({ baseUrl: url, timeoutMs: 1000, maxResponseBytes: 1024 });
    try {
      answer(200, { accounts: Array.from({ length: 20 }, () => goodAccount) });
      const error = await failure(small.listAccounts(DELEGATE, ctx));
      assert.ok(error instanceof CoreProtocolError);
      assert.match(error.message, /larger than 1024 bytes/);
      // The pool serves the next call.
      answer(200, { accounts: [goodAccount] });
      assert.deepEqual(await small.listAccounts(DELEGATE, ctx), [goodAccount]);
    } finally {
      await small.close();
    }
  });

  it('reports a refused connection as CoreUnavailable, safe to retry even for a new session', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = new HttpCoreConnector({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1000 });
    try {
      const error = await failure(unreachable.startSession(subject, ctx));
      assert.ok(error instanceof CoreUnavailable, String(error));
      assert.match(error.message, /cannot connect to the core \(ECONNREFUSED\)/);
      assert.equal(error.retrySafe, true, 'the request never left');
    } finally {
      await unreachable.close();
    }
  });

  it('uses an injected dispatcher and leaves closing it to its owner', async () => {
    const agent = new Agent();
    const borrowed = new HttpCoreConnector({ baseUrl: url, timeoutMs: 1000, dispatcher: agent });
    answer(200, { accounts: [] });
    assert.deepEqual(await borrowed.listAccounts(DELEGATE, ctx), []);
    await borrowed.close();
    assert.equal(agent.closed, false);
    await agent.close();
  });

  it('rejects a base URL that is not http(s) and an API key that cannot be a header', () => {
    assert.throws(() => new HttpCoreConnector({ baseUrl: 'ftp://core.example', timeoutMs: 1000 }), /http: or https:/);
    assert.throws(
      () => new HttpCoreConnector({ baseUrl: url, apiKey: 'with space', timeoutMs: 1000 }),
      /visible ASCII/,
    );
  });
});

describe('HttpCoreConnector: reading answers and deadlines', () => {
  let server: Server;
  let url: string;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => assert.fail('expected a failure'),
      (error: unknown) => error as Error,
    );
  /** The answer of `GET /v1/accounts` as UTF-8, sent in three writes flushed apart, one of them inside a character. */
  const body = Buffer.from(JSON.stringify({ accounts: [{ ...goodAccount, id: 'compte-épargne-ü' }] }));

  before(async () => {
    server = createServer((request, response) => {
      if (request.url !== '/v1/accounts') return; // never answered
      response.writeHead(200, { 'content-type': 'application/json' });
      const cut = body.indexOf('é') + 1;
      response.write(body.subarray(0, 10));
      setTimeout(() => response.write(body.subarray(10, cut)), 5);
      setTimeout(() => response.end(body.subarray(cut)), 10);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('reads an answer sent in several chunks, a character split across two of them', async () => {
    const connector = new HttpCoreConnector({ baseUrl: url, timeoutMs: 1000 });
    try {
      assert.deepEqual(await connector.listAccounts(DELEGATE, ctx), [{ ...goodAccount, id: 'compte-épargne-ü' }]);
    } finally {
      await connector.close();
    }
  });

  it('ends a call at its deadline while it still waits for a pool connection', async () => {
    const pool = new Pool(url, { connections: 1 });
    // Two connectors on one pool of one connection: the slow one holds it, unanswered.
    // The two deadlines lie far apart, so that however late a loaded machine fires the 100 ms
    // timer, the queued call cannot be mistaken for one that waited for the connection.
    const holding = new HttpCoreConnector({ baseUrl: `${url}/hang`, timeoutMs: 5000, dispatcher: pool });
    const queued = new HttpCoreConnector({ baseUrl: `${url}/hang`, timeoutMs: 100, dispatcher: pool });
    try {
      const hanging = failure(holding.listAccounts(DELEGATE, ctx));
      const started = performance.now();
      const error = await failure(queued.listAccounts(DELEGATE, ctx));
      const elapsed = performance.now() - started;
      assert.ok(error instanceof CoreUnavailable, String(error));
      assert.match(error.message, /no answer within 100 ms/);
      // Its own deadline is 100 ms; the connection frees up only after 5000 ms.
      assert.ok(elapsed < 4000, `ended after ${Math.round(elapsed)} ms, not when the connection freed up`);
      assert.match((await hanging).message, /no answer within 5000 ms/);
    } finally {
      await pool.destroy();
    }
  });
});
