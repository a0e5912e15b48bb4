/**
 * `coregate serve`: configuration → database → use cases → HTTP app → listen,
 * and an orderly shutdown on SIGTERM/SIGINT.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { runAdminCommand } from './cli/admin-commands.js';
import { adminSocketPath, serveAdminSocket } from './cli/admin-socket.js';
import { createServices, openDatabase, type Services } from './composition.js';
import type { Config } from './config/config.js';
import { createLogger } from './adapters/logging/logger.js';
import { buildApp } from './http/app.js';
import { welcomeFirstRun } from './first-run.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly services: Services;
  readonly url: string;
  stop(): Promise<void>;
}

/** The shutdown budget of CONTRACT §6: in-flight requests get this long to finish. */
const SHUTDOWN_GRACE_MS = 10_000;

function listeningUrl(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const reachable = host === '0.0.0.0' || host === '[::]' ? 'localhost' : host;
  return `http://${reachable}:${address.port}`;
}

export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const embedded = config.databaseUrl === undefined;
  const socketPath = embedded ? adminSocketPath(config.dataDir) : undefined;
  const opened = await openDatabase(config, { role: 'server', ...(socketPath ? { adminSocket: socketPath } : {}) });
  let services: Services;
  try {
    services = await createServices(config, { logger, database: opened.database, onClose: opened.release });
    await services.keyring.ensureActiveKey();
  } catch (error) {
    await opened.database.close().catch(() => {});
    opened.release();
    throw error;
  }
  if (embedded) logger.info({ dataDir: config.dataDir }, 'using the embedded database (PGlite)');

  const app = await buildApp({
    logger,
    clock: services.clock,
    issuer: services.issuer.get,
    authenticator: services.authenticator,
    tokenIssuer: services.tokenIssuer,
    revoker: services.revoker,
    keyring: services.keyring,
    clientDirectory: services.clientDirectory,
    trustProxy: config.trustProxy,
    gateway: { registrar: services.registrar, accountReader: services.accountReader },
  });
  await app.listen({ port: config.port, host: config.host });
  const url = listeningUrl(app.server.address() as AddressInfo);
  services.issuer.resolve(url);
  if (config.issuer === undefined && !['127.0.0.1', 'localhost', '[::1]'].some((host) => url.includes(`//${host}:`))) {
    logger.warn('COREGATE_ISSUER is not set: tokens name the listening address as their issuer; set it to the public URL');
  }

  let adminServer: Server | undefined;
  if (socketPath) {
    adminServer = await serveAdminSocket(socketPath, (argv, io) => runAdminCommand(argv, services, io));
  }
  logger.info({ url, issuer: services.issuer.get() }, `coregate listening on ${url}`);
  if (services.simulator) {
    logger.info('CORE_URL is not set: using the built-in core simulator with its demo data');
  }
  if (embedded) await welcomeFirstRun(services, url);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      adminServer?.close();
      await app.close();
      await services.close();
    })());
  return { app, services, url, stop };
}

/** Runs the server until a signal; resolves with the process exit status. */
export async function serve(config: Config): Promise<number> {
  const server = await startServer(config);
  return new Promise((resolve) => {
    const shutdown = (signal: string) => {
      server.services.logger.info({ signal }, 'shutting down');
      const timer = setTimeout(() => {
        server.services.logger.error('in-flight requests did not finish in time; exiting');
        resolve(1);
      }, SHUTDOWN_GRACE_MS);
      timer.unref();
      server.stop().then(
        () => {
          clearTimeout(timer);
          resolve(0);
        },
        (error: unknown) => {
          server.services.logger.error({ err: error }, 'error during shutdown');
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}
