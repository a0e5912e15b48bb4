/**
 * The admin application: only the operations endpoints (`/healthz`, `/readyz`,
 * `/metrics`), for `COREGATE_ADMIN_PORT`, so that they can be kept off the
 * port the platforms reach. Built without listening, like `buildApp`.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { installErrorHandling } from './plugins/error-handler.js';
import { opsRoutes, type OpsDeps } from './routes/ops/ops-routes.js';

export interface AdminAppDeps {
  readonly logger: FastifyBaseLogger;
  readonly ops: OpsDeps;
}

export async function buildAdminApp(deps: AdminAppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger.child({ server: 'admin' }),
    genReqId: () => randomUUID(),
    // Probes and scrapes come every few seconds and are all this app serves: their
    // request lines would drown the log. A failed readiness check still logs.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  installErrorHandling(app);
  await app.register(opsRoutes, deps.ops);
  return app;
}
