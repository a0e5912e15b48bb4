/**
 * One `Authorization` header per request. Node keeps the first of several and drops
 * the rest, so a request carrying two credentials (two Basic pairs, a valid bearer
 * then junk) would be judged on whichever came first: ambiguous credentials are
 * refused instead — `invalid_request` on the OAuth endpoints, 400 BadRequest elsewhere.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidRequest } from '../../domain/errors.js';

function authorizationHeaders(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') count += 1;
  return count;
}

export function requireSingleAuthorization(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and one promise less each time.
  app.addHook('onRequest', (request, _reply, done) => {
    if (authorizationHeaders(request) <= 1) return done();
    done(
      invalidRequest('more than one Authorization header', {
        problems: [{ path: 'authorization', message: 'must be given once' }],
      }),
    );
  });
}
