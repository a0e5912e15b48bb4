/**
 * Request metrics: every answered request by method, route pattern (never the raw
 * URL, which may carry personal data and has no bound) and status, with its
 * latency; and the token endpoint's issues and denials by the OAuth error code
 * sent, and the bearer check's refusals by reason. The operations endpoints are left out: probes and scrapes are not traffic.
 */
import type { FastifyInstance } from 'fastify';
import type { MetricsRecorder } from '../../ports/metrics.js';
import { OPS_PATHS } from '../routes/ops/ops-routes.js';

const TOKEN_ROUTE = '/oauth2/token';
/** The label of requests that matched no route, so scans cannot create series without bound. */
const UNMATCHED = 'unmatched';

function oauthErrorCode(payload: unknown, status: number): string {
  if (typeof payload === 'string') {
    try {
      const error = (JSON.parse(payload) as { error?: unknown }).error;
      if (typeof error === 'string' && /^[a-z_]{1,64}$/.test(error)) return error;
    } catch {
      // Not the endpoint's own JSON (a proxy or plugin answered): the status names it.
    }
  }
  return `http_${status}`;
}

/** Installs the hooks on the root app, so they see every route. */
export function installRequestMetrics(app: FastifyInstance, metrics: MetricsRecorder): void {
  // Callback hooks, not async ones: one promise less per hook and request.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.routeOptions.url === TOKEN_ROUTE && request.method === 'POST') {
      if (reply.statusCode === 200) metrics.tokenIssued();
      else metrics.tokenDenied(oauthErrorCode(payload, reply.statusCode));
    }
    // Every refusal of the bearer check, one by one: the audit log keeps only per-minute counts of some.
    if (request.accessDenial) metrics.accessDenied(request.accessDenial.reason);
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    if (!OPS_PATHS.has(route)) metrics.httpRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
