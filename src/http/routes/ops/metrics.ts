/** `GET /metrics` — every metric in the Prometheus text format (names in docs/operations.md). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { MetricsExposition } from '../../../ports/metrics.js';

export interface MetricsRouteDeps {
  readonly metrics: MetricsExposition;
}

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function metricsRoute(app: FastifyInstance, deps: MetricsRouteDeps): Promise<void> {
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Metrics in the Prometheus text exposition format',
        tags: ['operations'],
        produces: ['text/plain'],
        response: { 200: Type.String() },
      },
    },
    async (_request, reply) => {
      const text = await deps.metrics.render();
      reply.header('cache-control', 'no-store').type(deps.metrics.contentType);
      return text;
    },
  );
}
