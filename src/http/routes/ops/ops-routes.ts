/**
 * The operations endpoints — `/healthz`, `/readyz`, `/metrics` — served on the
 * main port, or only on `COREGATE_ADMIN_PORT` when that is set (`http/admin-app.ts`).
 */
import type { FastifyInstance } from 'fastify';
import type { ReadinessProbe } from '../../../app/readiness.js';
import type { MetricsExposition } from '../../../ports/metrics.js';
import { healthRoutes } from './health.js';
import { metricsRoute } from './metrics.js';

export interface OpsDeps {
  readonly readiness: Pick<ReadinessProbe, 'check'>;
  readonly metrics: MetricsExposition;
}

/** Their paths, left out of the request metrics (scrapes and probes are not traffic). */
export const OPS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export async function opsRoutes(app: FastifyInstance, deps: OpsDeps): Promise<void> {
  await app.register(healthRoutes, { readiness: deps.readiness });
  await app.register(metricsRoute, { metrics: deps.metrics });
}
