/**
 * The connection side of a graceful shutdown (`plugins/connection-draining.ts`),
 * on a listening app: while `app.close()` waits for a request in flight, a request
 * that arrives on an open connection is refused with 503 and `Retry-After` in its
 * route's error format, and every answer says `Connection: close`.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';

/** A raw connection that has sent the start of a request: the server is reading it, so it is not idle. */
async function startedRequest(port: number, head: string): Promise<{ finish(rest: string): Promise<string> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head);
  return {
    async finish(rest) {
      socket.write(rest);
      await closed;
      return received;
    },
  };
}

describe('requests while the app is closing', () => {
  let h: Harness;
  let port: number;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));

  before(async () => {
    h = await createHarness(QUICKEST_BACKEND, {
      routes: (app) => {
        app.get('/test/slow', async () => {
          await released;
          return { done: true };
        });
      },
    });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  after(() => h?.close());

  it('finishes the request in flight; refuses what arrives meanwhile with 503 in the route’s format', async () => {
    const inFlight = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      http
        .get({ port, host: '127.0.0.1', path: '/test/slow', agent: new http.Agent({ keepAlive: true }) }, (response) => {
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, body }));
        })
        .on('error', reject);
    });
    const gateway = await startedRequest(port, 'GET /core/accounts?customerId=c-1 HTTP/1.1\r\nHost: coregate.test\r\n');
    const token = await startedRequest(port, 'POST /oauth2/token HTTP/1.1\r\nHost: coregate.test\r\nContent-Type: application/x-www-form-urlencoded\r\n');
    await sleep(50);

    const closing = h.app.close();
    await sleep(50);
    const gatewayAnswer = await gateway.finish('\r\n');
    assert.match(gatewayAnswer, /^HTTP\/1\.1 503 /);
    assert.match(gatewayAnswer, /\r\nretry-after: 1\r\n/i);
    assert.match(gatewayAnswer, /\r\nconnection: close\r\n/i);
    const envelope = JSON.parse(gatewayAnswer.slice(gatewayAnswer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    assert.deepEqual({ name: envelope['name'], className: envelope['className'], code: envelope['code'] }, { name: 'Unavailable', className: 'unavailable', code: 503 });

    const tokenAnswer = await token.finish('Content-Length: 29\r\n\r\ngrant_type=client_credentials');
    assert.match(tokenAnswer, /^HTTP\/1\.1 503 /);
    assert.match(tokenAnswer, /\r\ncache-control: no-store\r\n/i);
    assert.deepEqual(JSON.parse(tokenAnswer.slice(tokenAnswer.indexOf('\r\n\r\n') + 4)), { error: 'temporarily_unavailable' });

    release();
    const answer = await inFlight;
    assert.deepEqual(answer, { status: 200, connection: 'close', body: '{"done":true}' });
    await closing;
  });
});
