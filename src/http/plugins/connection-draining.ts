/**
 * Graceful shutdown, the connection side. Once `app.close()` starts:
 * - the listening socket closes first: no new connection is accepted;
 * - a request that still arrives on an open (kept-alive) connection is refused with 503 and
 *   `Retry-After`, rendered like every other error of its route (the gateway envelope, or
 *   the OAuth form) — Fastify's own `return503OnClosing` would answer in neither;
 * - every answer sent while closing says `Connection: close`, and Node closes the connection
 *   after it: the client opens a new one for its next request (to another process, or to
 *   this one's successor);
 * - a kept-alive connection with no request under way is closed only once it has been
 *   quiet for {@link QUIET_MS}, judged only after the event loop has read what clients sent
 *   (a next request that arrived while the process was busy counts). HTTP/1.1 has no way to
 *   tell a client "no more requests here" but the `Connection: close` of an answer, so a
 *   connection closed between a client's answer and its next request resets that request
 *   (RFC 9112 §9.3.1 lets clients retry it, and few do). Closing every idle connection at
 *   once (Node's `closeIdleConnections()`, Fastify's `forceCloseConnections: 'idle'`) did that
 *   to every busy client. A busy client's connection is seldom quiet for a second, even on
 *   a loaded host: its next request gets the `Connection: close` answer instead — the drain
 *   Envoy performs (`--drain-time-s`), made short because a gateway's idle connections are
 *   mostly pooled ones that went quiet long before. The wait lasts at most {@link DRAIN_MS};
 *   then Fastify closes whatever is left idle, and requests in flight go on until they are
 *   answered (docs/operations.md#shutdown-and-restarts).
 */
import type { Socket } from 'node:net';
import { Server as NetServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { unavailable } from '../../domain/errors.js';

/**
 * A connection without a request this long is closed as idle while shutting down. At 250 ms,
 * clients sharing one loaded core with the server stalled past it between an answer and their
 * next request, and were reset (13 in 80 busy connections, test/e2e/graceful-shutdown.test.ts).
 */
export const QUIET_MS = 1_000;
/** The longest the shutdown waits for idle connections to go quiet before closing them anyway. */
const DRAIN_MS = 3_000;
const POLL_MS = 20;

interface Connection {
  busy: number;
  lastActive: number;
  /** `socket.bytesRead` when last looked at while draining. */
  bytesSeen: number;
}

/**
 * Resolves once the event loop has polled its sockets after this call. Bytes a client sent
 * while this process was busy wait in the kernel, unread, until a poll reads them; a timer, or
 * an I/O callback such as the SIGTERM handler, runs before it. Judged on `bytesRead` from
 * before that poll, a connection whose next request sat unread looked quiet and was closed
 * under the request. An immediate runs in the check phase right after a poll phase, and one
 * set from the check phase in the next turn's: the second of two runs after a poll that began
 * after the call, whichever phase it was made in.
 */
function afterNextPoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

export function installConnectionDraining(app: FastifyInstance): void {
  let closing = false;
  const connections = new Map<Socket, Connection>();
  const track = (socket: Socket) => {
    connections.set(socket, { busy: 0, lastActive: Date.now(), bytesSeen: 0 });
    // Not a 'data' listener (bytes of a next request, before Node parses them, are seen by
    // `bytesRead` while draining): one makes Node's HTTP server "unconsume" the socket, and
    // every request is then read through a JavaScript stream instead of by the native parser
    // straight from the socket, a cost every gateway request paid (docs/benchmarks.md).
    socket.once('close', () => connections.delete(socket));
  };
  // Over TLS the request's socket is the TLS one; the raw TCP one never carries a request.
  const tls = 'setSecureContext' in app.server;
  app.server.on(tls ? 'secureConnection' : 'connection', track);
  app.addHook('preClose', async () => {
    closing = true;
    if (!app.server.listening) return;
    // Stop accepting, but without Node's http close(), which closes every idle connection at
    // once (Fastify calls it after this hook, and tolerates the server being closed already).
    NetServer.prototype.close.call(app.server);
    const deadline = Date.now() + DRAIN_MS;
    for (const [socket, connection] of connections) connection.bytesSeen = socket.bytesRead;
    while (Date.now() < deadline) {
      await afterNextPoll();
      const now = Date.now();
      let waiting = false;
      for (const [socket, connection] of connections) {
        // Bytes of a next request count as activity before Node has parsed them into a request.
        if (socket.bytesRead !== connection.bytesSeen) {
          connection.bytesSeen = socket.bytesRead;
          connection.lastActive = now;
        }
        if (connection.busy > 0) continue;
        if (now - connection.lastActive >= QUIET_MS) socket.end();
        else waiting = true;
      }
      if (!waiting) return;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  });
  // Callback hooks, not async ones: they run on every request. A request is counted from its
  // first hook to its answer in Fastify's hooks rather than by a listener on Node's 'request'
  // and on each response's 'close' (a listener per response, paid by every request); a client that goes away
  // mid-request closes the socket, and its connection is forgotten with it.
  app.addHook('onRequest', (request, _reply, done) => {
    const connection = connections.get(request.raw.socket);
    if (connection) {
      connection.busy += 1;
      connection.lastActive = Date.now();
    }
    if (!closing) return done();
    done(unavailable('the service is shutting down; retry', 'shutting down', 1));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const connection = connections.get(request.raw.socket);
    if (connection && connection.busy > 0) {
      connection.busy -= 1;
      connection.lastActive = Date.now();
    }
    done();
  });
}
