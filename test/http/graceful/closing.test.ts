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
import { QUIET_MS } from '../../../src/http/plugins/connection-draining.js';
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

/** A GET on a keep-alive connection of its own, read to its end. */
function keepAliveGet(
  port: number,
  path: string,
): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ port, host: '127.0.0.1', path, agent: new http.Agent({ keepAlive: true }) }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, connection: response.headers.connection, body }),
        );
      })
      .on('error', reject);
  });
}

/** Resolves once the app has begun closing: the draining plugin stops the listener as it starts refusing. */
async function untilClosing(h: Harness): Promise<void> {
  while (h.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
}

/** Resolves once `server` has accepted `count` more connections (its own listeners, the draining plugin's, ran first). */
function accepted(server: net.Server, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onConnection = () => {
      seen += 1;
      if (seen < count) return;
      server.off('connection', onConnection);
      resolve();
    };
    server.on('connection', onConnection);
  });
}

/**
 * A listening app with `GET /test/slow`, which answers once `release()` is called;
 * `started` resolves once a request to it is in its handler.
 */
async function appWithSlowRoute(): Promise<{ h: Harness; port: number; release: () => void; started: Promise<void> }> {
  let release!: () => void;
  let entered!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (entered = resolve));
  const h = await createHarness(QUICKEST_BACKEND, {
    routes: (app) => {
      app.get('/test/slow', async () => {
        entered();
        await released;
        return { done: true };
      });
    },
  });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  return { h, port: (h.app.server.address() as AddressInfo).port, release, started };
}

// A suite that waits on a closing app: a failure must end it rather than leave it waiting.
describe('requests while the app is closing', { timeout: 60_000 }, () => {
  // Each test closes its app: each has an app of its own.
  it('finishes the request in flight; refuses what arrives meanwhile with 503 in the route’s format', async (t) => {
    const { h, port, release, started } = await appWithSlowRoute();
    // Released on failure too: closing the app waits for the request in flight (it hung a run).
    t.after(() => {
      release();
      return h.close();
    });
    const inFlight = keepAliveGet(port, '/test/slow');
    await started;
    // Opened only now, right before closing: a connection without a request is closed as idle
    // once it has been quiet for the plugin's QUIET_MS (of wall clock), and a loaded host once
    // took longer than that between opening them first and closing.
    const connected = accepted(h.app.server, 2);
    const gateway = await startedRequest(port, 'GET /core/accounts?customerId=c-1 HTTP/1.1\r\nHost: coregate.test\r\n');
    const token = await startedRequest(
      port,
      'POST /oauth2/token HTTP/1.1\r\nHost: coregate.test\r\nContent-Type: application/x-www-form-urlencoded\r\n',
    );
    await connected;

    const closing = h.app.close();
    // The requests' remaining bytes come once the shutdown has begun.
    await untilClosing(h);
    const gatewayAnswer = await gateway.finish('\r\n');
    assert.match(gatewayAnswer, /^HTTP\/1\.1 503 /);
    assert.match(gatewayAnswer, /\r\nretry-after: 1\r\n/i);
    assert.match(gatewayAnswer, /\r\nconnection: close\r\n/i);
    const envelope = JSON.parse(gatewayAnswer.slice(gatewayAnswer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    assert.deepEqual(
      { name: envelope['name'], className: envelope['className'], code: envelope['code'] },
      { name: 'Unavailable', className: 'unavailable', code: 503 },
    );

    const tokenAnswer = await token.finish('Content-Length: 29\r\n\r\ngrant_type=client_credentials');
    assert.match(tokenAnswer, /^HTTP\/1\.1 503 /);
    assert.match(tokenAnswer, /\r\ncache-control: no-store\r\n/i);
    assert.deepEqual(JSON.parse(tokenAnswer.slice(tokenAnswer.indexOf('\r\n\r\n') + 4)), {
      error: 'temporarily_unavailable',
    });

    release();
    const answer = await inFlight;
    assert.deepEqual(answer, { status: 200, connection: 'close', body: '{"done":true}' });
    await closing;
  });

  it('answers a request that outlasts the quiet time: its connection is busy, not idle', async (t) => {
    const { h, port, release, started } = await appWithSlowRoute();
    t.after(() => h.close());
    const answer = keepAliveGet(port, '/test/slow');
    await started;
    const closing = h.app.close();
    // Well past QUIET_MS (the plugin's wall clock) without a byte on the connection: the time
    // that passes is what this test is about, and a slow host only makes it longer.
    await sleep(QUIET_MS + 350);
    release();
    assert.deepEqual(await answer, { status: 200, connection: 'close', body: '{"done":true}' });
    await closing;
  });
  it('reads the next request a busy process left unread before closing a connection as idle', async (t) => {
    const h = await createHarness(QUICKEST_BACKEND, {
      routes: (app) => {
        app.get('/test/ping', async () => ({ pong: true }));
      },
    });
    t.after(() => h.close());
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const socket = net.connect((h.app.server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('GET /test/ping HTTP/1.1\r\nHost: coregate.test\r\n\r\n');
    await new Promise<void>((resolve) => {
      const answered = () => {
        if (!received.includes('"pong"')) return;
        socket.off('data', answered);
        resolve();
      };
      socket.on('data', answered);
    });
    const answeredAt = Date.now();
    received = '';
    // The next request reaches the kernel at once (a write to a connected socket is tried
    // straight away); then this process, which is also the server, is busy past the plugin's
    // QUIET_MS and starts closing before its event loop has read a byte: by the wall
    // clock the connection looks quiet, while a whole request waits on it. The wait is the
    // subject, and however slow the host it ends past QUIET_MS.
    socket.write('GET /core/accounts?customerId=c-1 HTTP/1.1\r\nHost: coregate.test\r\n\r\n');
    while (Date.now() - answeredAt <= QUIET_MS + 50);
    const closing = h.app.close();
    await closed;
    assert.match(received, /^HTTP\/1\.1 503 /, 'answered, not closed under the request');
    assert.match(received, /\r\nconnection: close\r\n/i);
    await closing;
  });
});

describe('connections while the app is closing', { timeout: 60_000 }, () => {
  let h: Harness;
  let port: number;

  before(async () => {
    h = await createHarness(QUICKEST_BACKEND, {
      routes: (app) => {
        app.get('/test/data-listeners', async (request) => ({ count: request.raw.socket.listenerCount('data') }));
      },
    });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  after(() => h?.close());

  it("leaves Node's HTTP parser reading the socket itself: no 'data' listener beyond Node's own", async () => {
    // A 'data' listener on a connection makes Node parse every request through a JavaScript stream (docs/benchmarks.md).
    const bare = http.createServer((request, response) => response.end(String(request.socket.listenerCount('data'))));
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const get = (url: string) => fetch(url).then((response) => response.text());
    try {
      const nodeOwn = Number(await get(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/`));
      assert.deepEqual(JSON.parse(await get(`http://127.0.0.1:${port}/test/data-listeners`)), { count: nodeOwn });
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  });

  it('keeps an idle connection open while the bytes of its next request arrive, and answers that request 503', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    let closedAt = Infinity;
    const closed = new Promise<void>((resolve) =>
      socket.once('close', () => {
        closedAt = Date.now();
        resolve();
      }),
    );
    socket.write('GET /test/data-listeners HTTP/1.1\r\nHost: coregate.test\r\n\r\n');
    await new Promise<void>((resolve) => {
      const answered = () => {
        if (!received.includes('"count"')) return;
        socket.off('data', answered);
        resolve();
      };
      socket.on('data', answered);
    });
    received = '';
    const closing = h.app.close();
    const closingAt = Date.now();
    // The next request trickles in a header line every quarter of QUIET_MS, for more than twice
    // QUIET_MS: counted by the clock since its last answer alone, the connection was quiet long
    // before the request is whole, and closed under it. A slow host stretching one pause by
    // less than three quarters of QUIET_MS does not change that.
    socket.write('GET /core/accounts?customerId=c-1 HTTP/1.1\r\n');
    for (let line = 0; Date.now() - closingAt < 2 * QUIET_MS + 100; line += 1) {
      await sleep(QUIET_MS / 4);
      socket.write(`X-Trickle-${line}: ${line}\r\n`);
    }
    socket.write('Host: coregate.test\r\n\r\n');
    await closed;
    assert.ok(closedAt - closingAt > 2 * QUIET_MS, 'open for as long as bytes arrived');
    assert.match(received, /^HTTP\/1\.1 503 /);
    assert.match(received, /\r\nconnection: close\r\n/i);
    await closing;
  });
});
