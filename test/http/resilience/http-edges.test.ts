/**
 * Requests at the edge of HTTP, each answered in the form of its path (OAuth
 * `{error}` on /oauth2/*, the gateway envelope elsewhere): two Authorization
 * headers (400), a known path with another method (405 with `Allow`, for every
 * route, derived from the registered routes), headers over Node's limit (431), a
 * malformed request line (400), and a body trickling in past
 * COREGATE_REQUEST_TIMEOUT_MS (408, connection closed). On a listening server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { rawRequest } from './raw-http.js';

const REQUEST_TIMEOUT_MS = 1000;

describe('HTTP edges: duplicate credentials, 405, parser refusals, slow bodies', () => {
  let h: Harness;
  let port: number;
  let client: { id: string; secret: string };
  let token: string;

  before(async () => {
    h = await createHarness(QUICKEST_BACKEND, {
      env: { COREGATE_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
      // A route added by another module after the app's own: the 405 rule covers it too.
      routes: (app) => {
        app.get('/test/late/:id', async () => ({ ok: true }));
        app.delete('/test/late/:id', async () => ({ ok: true }));
      },
    });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as { port: number }).port;
    client = await h.client();
    token = await h.token(client);
  });
  after(() => h?.close());

  it('refuses two Authorization headers: invalid_request on the token endpoint, 400 on /core/*', async () => {
    const other = await h.client();
    const body = 'grant_type=client_credentials';
    const tokenAnswer = await rawRequest(port, [
      `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic(client.id, client.secret)}\r\nAuthorization: ${basic(other.id, other.secret)}\r\n` +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    assert.equal(tokenAnswer.status, 400, tokenAnswer.body);
    assert.equal(JSON.parse(tokenAnswer.body).error, 'invalid_request');
    assert.equal(JSON.parse(tokenAnswer.body).access_token, undefined);

    const gateway = await rawRequest(port, [
      `GET /core/accounts?customerId=x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nAuthorization: Bearer junk\r\nConnection: close\r\n\r\n`,
    ]);
    assert.equal(gateway.status, 400, gateway.body);
    assert.equal(JSON.parse(gateway.body).className, 'bad-request');

    const single = await rawRequest(port, [
      `GET /core/accounts?customerId=x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    ]);
    assert.equal(single.status, 404, 'one header is fine');
  });

  it('answers 405 with Allow for a known path and another method, on every route', async () => {
    for (const method of ['TRACE', 'PUT', 'DELETE', 'GET']) {
      const response = await h.app.inject({ method: method as 'PUT', url: '/oauth2/token' });
      assert.equal(response.statusCode, 405, `${method} /oauth2/token`);
      assert.equal(response.headers['allow'], 'POST');
      assert.equal(response.json().error, 'invalid_request');
      assert.equal(response.headers['cache-control'], 'no-store');
    }
    const cases: Array<[string, string, string]> = [
      ['PUT', '/core/accounts?customerId=x', 'GET'],
      ['HEAD', '/core/accounts', 'GET'],
      ['DELETE', '/core/accounts', 'GET'],
      ['PUT', '/core/sessions', 'DELETE, GET, POST'],
      ['POST', '/.well-known/jwks.json', 'GET, HEAD'],
      ['PATCH', '/test/late/42', 'DELETE, GET, HEAD'],
    ];
    for (const [method, url, allow] of cases) {
      const response = await h.app.inject({
        method: method as 'PUT',
        url,
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.statusCode, 405, `${method} ${url}: ${response.body}`);
      assert.equal(response.headers['allow'], allow, `${method} ${url}`);
      if (method === 'HEAD') continue;
      const body = response.json();
      assert.equal(typeof body.data?.requestId, 'string', 'data.requestId');
      assert.deepEqual(
        { ...body, data: { ...body.data, requestId: '-' } },
        {
          name: 'MethodNotAllowed',
          className: 'method-not-allowed',
          message: `use ${allow}`,
          code: 405,
          data: { reason: 'method_not_allowed', requestId: '-' },
        },
      );
    }
    assert.equal((await h.app.inject({ method: 'PUT', url: '/no/such/path' })).statusCode, 404);
  });

  it('answers a 20 KB header and a malformed request line in the form of the path, and closes', async () => {
    const big = 'x'.repeat(20 * 1024);
    const core = await rawRequest(port, [
      `GET /core/accounts?customerId=x HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`,
    ]);
    assert.equal(core.status, 431, core.body);
    assert.deepEqual(Object.keys(JSON.parse(core.body)).sort(), ['className', 'code', 'data', 'message', 'name']);
    assert.equal(JSON.parse(core.body).code, 431);
    assert.ok(core.closed);

    const oauth = await rawRequest(port, [`POST /oauth2/token HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`]);
    assert.equal(oauth.status, 431, oauth.body);
    assert.equal(JSON.parse(oauth.body).error, 'invalid_request');

    const malformed = await rawRequest(port, ['GET /core/accounts HTTP/1.1 trailing-junk\r\nHost: x\r\n\r\n']);
    assert.equal(malformed.status, 400, malformed.body);
    assert.equal(JSON.parse(malformed.body).className, 'bad-request');
    assert.ok(malformed.closed);

    const malformedOAuth = await rawRequest(port, [
      'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n',
    ]);
    assert.equal(malformedOAuth.status, 400, malformedOAuth.body);
    assert.equal(JSON.parse(malformedOAuth.body).error, 'invalid_request');
  });

  it('answers 408 and closes a connection whose body trickles in past the request timeout', async () => {
    const head = `POST /core/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const trickle = Array.from({ length: 20 }, () => 'x');
    const answer = await rawRequest(port, [head, ...trickle], { gapMs: 300, waitMs: 6000 });
    console.log(`slow body: 408 after ${answer.ms} ms (timeout ${REQUEST_TIMEOUT_MS} ms)`);
    assert.equal(answer.status, 408, answer.body);
    assert.equal(JSON.parse(answer.body).className, 'timeout');
    assert.ok(answer.closed, 'the connection is closed');
    assert.ok(answer.ms < REQUEST_TIMEOUT_MS + 2000, `answered after ${answer.ms} ms`);
  });

  it('answers that 408 in the OAuth form on the token endpoint (the path is remembered from the request)', async () => {
    const head = `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic(client.id, client.secret)}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n`;
    const answer = await rawRequest(port, [head, ...Array.from({ length: 20 }, () => 'x')], {
      gapMs: 300,
      waitMs: 6000,
    });
    assert.equal(answer.status, 408, answer.body);
    assert.equal(JSON.parse(answer.body).error, 'invalid_request');
    assert.ok(answer.closed, 'the connection is closed');
  });
});
