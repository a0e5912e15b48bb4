/**
 * The admin listener of `COREGATE_ADMIN_PORT`: `/healthz`, `/readyz` and
 * `/metrics` only, on `HOST` like the main port. When the setting is unset the
 * main app serves them instead (see `startServer`).
 */
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Services } from './services.js';
import type { Config } from '../config/config.js';
import { buildAdminApp } from '../http/admin-app.js';
import type { OpsDeps } from '../http/routes/ops/ops-routes.js';

export interface OpsServer {
  readonly app: FastifyInstance;
  /** `http://host:port` with the port actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

/** What the operations endpoints need from the services. */
export function opsDeps(services: Services): OpsDeps {
  return { readiness: services.readiness, metrics: services.metrics };
}

/** Listens on `config.adminPort` (0 picks a free one); `undefined` when the setting is unset. */
export async function startOpsServer(
  config: Config,
  services: Services,
  logger: FastifyBaseLogger,
): Promise<OpsServer | undefined> {
  if (config.adminPort === undefined) return undefined;
  const app = await buildAdminApp({ logger, ops: opsDeps(services) });
  await app.listen({ port: config.adminPort, host: config.host });
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? 'localhost' : host}:${address.port}`;
  logger.info({ url }, `operations endpoints (/healthz, /readyz, /metrics) on ${url}`);
  return { app, url, close: () => app.close() };
}
