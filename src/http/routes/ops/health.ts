/**
 * `GET /healthz` (the process is alive) and `GET /readyz` (it can serve: the
 * database answers and the signing key opens; each core's state is reported but
 * never makes it 503 — docs/behaviour.md#health). Unauthenticated, for load balancers and
 * orchestrators; they say which check failed, never why (that is logged).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ReadinessProbe } from '../../../app/readiness.js';

export interface HealthRouteDeps {
  readonly readiness: Pick<ReadinessProbe, 'check'>;
}

const CheckStatus = Type.Union([Type.Literal('ok'), Type.Literal('failed')]);

const LivenessSchema = Type.Object({ status: Type.Literal('ok') }, { $id: 'Liveness', additionalProperties: false });

const ReadinessSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    checks: Type.Object(
      {
        database: Type.Optional(CheckStatus),
        signing_key: Type.Optional(CheckStatus),
        core: Type.Optional(CheckStatus),
      },
      { additionalProperties: CheckStatus },
    ),
  },
  { $id: 'Readiness', additionalProperties: false },
);

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function healthRoutes(app: FastifyInstance, deps: HealthRouteDeps): Promise<void> {
  app.get(
    '/healthz',
    { schema: { summary: 'Liveness: the process is up', tags: ['operations'], response: { 200: LivenessSchema } } },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'ok' };
    },
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: this instance can serve (database, signing key); each core is reported',
        description:
          'Every check is named in `checks`: `database`, `signing_key`, and the core of each enabled institution (`core` for `default`, `core:ID` for the others). ' +
          'Only `database` and `signing_key` make it 503: a core that is down is reported as `failed` here (and in the metrics), never taken for this instance being unable to serve.',
        tags: ['operations'],
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
      },
    },
    async (request, reply) => {
      const report = await deps.readiness.check({ requestId: request.id });
      reply.header('cache-control', 'no-store');
      if (!report.ready) {
        request.log.warn({ failures: report.failures }, 'not ready');
        reply.code(503);
        return { status: 'unavailable', checks: report.checks };
      }
      if (report.failures.length > 0)
        request.log.warn({ failures: report.failures }, 'ready, with a dependency failing');
      return { status: 'ok', checks: report.checks };
    },
  );
}
