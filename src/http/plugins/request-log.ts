/**
 * One log line per request, written when it is answered: method, path, status, how long
 * it took, the caller's address and, once known, the client and its institution. Fastify's own request
 * logging writes two lines (incoming, completed) with the same request id; at the default
 * level those lines were a third of a token request's CPU, and the first says nothing the
 * second does not. A request that never completes is still seen: the error handler and
 * the timeouts log their own lines.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The authenticated caller, for a request's log lines: its client and, on the gateway, its institution. */
export function callerOf(request: FastifyRequest): { clientId?: string; institution?: string } {
  if (request.principal) return { clientId: request.principal.clientId, institution: request.principal.institution };
  if (request.oauthClient) return { clientId: request.oauthClient.id, institution: request.oauthClient.institution };
  return {};
}

export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        // Fastify's serializers: method, url, host, remoteAddress, remotePort; statusCode.
        req: request,
        res: reply,
        responseTime: Math.round(reply.elapsedTime * 1000) / 1000,
        ...callerOf(request),
      },
      'request completed',
    );
    done();
  });
}
