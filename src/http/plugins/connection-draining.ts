/**
 * Graceful shutdown, the connection side. Once `app.close()` starts, Fastify
 * stops listening and closes idle kept-alive connections (`forceCloseConnections:
 * 'idle'`); requests in flight go on. Here:
 * - a request that still arrives on an open connection is refused with 503 and
 *   `Retry-After`, rendered like every other error of its route (the gateway
 *   envelope, or the OAuth form) — Fastify's own `return503OnClosing` would answer
 *   in neither;
 * - every answer sent while closing says `Connection: close`: a client would
 *   otherwise send its next request on that connection just as the server closes
 *   it, and see a reset. It opens a new connection instead (to another process,
 *   or to this one's successor).
 */
import type { FastifyInstance } from 'fastify';
import { Unavailable } from '../../domain/errors.js';

export function installConnectionDraining(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Callback hooks, not async ones: they run on every request.
  app.addHook('onRequest', (_request, _reply, done) => {
    if (!closing) return done();
    done(new Unavailable('the service is shutting down; retry', {}, { detail: 'shutting down', headers: { 'retry-after': '1' } }));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
    done(null, payload);
  });
}
