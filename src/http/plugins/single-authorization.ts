/**
 * One `Authorization` header per request, and one client-certificate header when a trusted
 * proxy passes certificates in one (COREGATE_TLS_CLIENT_CERT_HEADER). Node keeps the first of
 * several `Authorization` headers and joins other repeated headers with commas, so a request
 * carrying two credentials (two Basic pairs, a valid bearer then junk, a victim's certificate
 * written before the proxy's) would be judged on whichever came first: ambiguous credentials
 * are refused instead, and so is one certificate line holding several certificates (a proxy
 * folding repeated lines into one) — `invalid_request` on the OAuth endpoints, 400 BadRequest elsewhere.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidRequest } from '../../domain/errors.js';
import { holdsSeveralCertificates } from '../client-certificate.js';

/** How many times each of `names` (lower case) occurs among the request's raw headers. */
function headerCounts(request: FastifyRequest, names: readonly string[]): number[] {
  const raw = request.raw.rawHeaders;
  const counts = names.map(() => 0);
  for (let i = 0; i < raw.length; i += 2) {
    const at = names.indexOf(raw[i]!.toLowerCase());
    if (at >= 0) counts[at]! += 1;
  }
  return counts;
}

/** `certificateHeader`: the (lower-case) header a trusted proxy passes client certificates in, if any. */
export function requireSingleAuthorization(app: FastifyInstance, certificateHeader?: string): void {
  const names = certificateHeader === undefined ? ['authorization'] : ['authorization', certificateHeader];
  const shown = certificateHeader === undefined ? ['Authorization'] : ['Authorization', certificateHeader];
  // A callback hook, not an async one: it runs on every request, and one promise less each time.
  app.addHook('onRequest', (request, _reply, done) => {
    const counts = headerCounts(request, names);
    let repeated = counts.findIndex((count) => count > 1);
    // One certificate line holding several certificates is two lines folded into one.
    if (repeated < 0 && counts[1] === 1) {
      const value = request.headers[certificateHeader!];
      if (typeof value === 'string' && holdsSeveralCertificates(value)) repeated = 1;
    }
    if (repeated < 0) return done();
    done(
      invalidRequest(`more than one ${shown[repeated]} header`, {
        problems: [{ path: names[repeated]!, message: 'must be given once' }],
      }),
    );
  });
}
