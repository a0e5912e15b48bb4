/**
 * `coregate serve`: configuration → database → use cases → HTTP app → listen,
 * and an orderly shutdown on SIGTERM/SIGINT.
 */
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { unknownSettingsInEnvironment, type Config } from '../config/config.js';
import { createLogger } from '../adapters/logging/logger.js';
import { buildApp } from '../http/app.js';
import { adminOperations } from './admin-operations.js';
import { adminSocketPlace, serveAdminSocket, type AdminSocketPlace } from './admin-socket.js';
import { appDepsFrom } from './app-deps.js';
import { guessedIssuerWarning } from './issuer-url.js';
import { welcomeFirstRun } from './first-run.js';
import { leaveCluster, reportReady, superviseWorkers, supervisesWorkers } from './cluster.js';
import { startOpsServer, type OpsServer } from './ops-server.js';
import { startConsoleServer, type ConsoleServer } from './console-server.js';
import { openServices, type Services } from './services.js';
// Operations: HTTPS, rate limits, production checks.
import { readClientCa, readTlsCredentials } from '../adapters/tls/read-tls-credentials.js';
import { tokenTransport } from '../config/token-transport.js';
import { logStartupChecks } from './startup-checks.js';
import { limitHeapGrowth } from './heap-tuning.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly services: Services;
  readonly url: string;
  /** URL of the COREGATE_ADMIN_PORT listener (`/healthz`, `/readyz`, `/metrics`); `undefined` when they are on `url`. */
  readonly adminUrl: string | undefined;
  /** Base URL of the operator console (COREGATE_CONSOLE_PORT; pages under `/console`); `undefined` when it is off. */
  readonly consoleUrl: string | undefined;
  stop(): Promise<void>;
}

/**
 * On SIGTERM the process is gone within 10 s (docs/behaviour.md#graceful-shutdown). In-flight
 * requests get this long to finish; then the connections still open are cut and the process
 * exits 1 at most {@link SHUTDOWN_FORCE_MS} after the grace ended, counted from the signal: a
 * grace timer that a loaded host ran late leaves the exit less time, not the budget more. The
 * last second is the exit's own: tearing the process down takes time on a loaded host too.
 */
const SHUTDOWN_GRACE_MS = 8_500;
const SHUTDOWN_FORCE_MS = 500;

function listeningUrl(address: AddressInfo, secure: boolean): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const reachable = host === '0.0.0.0' || host === '[::]' ? 'localhost' : host;
  return `${secure ? 'https' : 'http'}://${reachable}:${address.port}`;
}

/** What a start opened so far, closed in reverse order when a later step fails or the server stops. */
interface Started {
  socket?: AdminSocketPlace;
  services?: Services;
  app?: FastifyInstance;
  opsServer?: OpsServer | undefined;
  consoleServer?: ConsoleServer | undefined;
  adminServer?: Server;
}

/**
 * Closes what was started: the admin socket first (no new operations), the ops
 * listener, then the app (answering what is in flight) and only then the pools and
 * the data dir, so nothing is closed under a request still using it.
 */
async function closeStarted(started: Started): Promise<void> {
  try {
    // Not awaited: an operation under way finishes on its own, and shutdown keeps its budget.
    started.adminServer?.close();
    // No background readiness round starts from here on; one under way ends within its checks' deadline.
    void started.services?.dependencyWatch.stop();
    await started.opsServer?.close();
    await started.consoleServer?.close();
    await started.app?.close();
  } finally {
    try {
      await started.services?.close();
    } finally {
      started.socket?.dispose();
    }
  }
}

export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel, undefined, { traceIds: config.tracing !== undefined });
  // Read before anything opens: a missing or mismatched file is a ConfigError naming the variable.
  const tls = readTlsCredentials(config);
  // Behind a proxy passing client certificates, the CA is read only for them: checked here all the same.
  readClientCa(config);
  const embedded = config.databaseUrl === undefined;
  const started: Started = {};
  // Any step that fails stops the whole start: what was opened is closed and the data dir
  // released, never a server answering without its admin socket or shutdown handling.
  try {
    if (embedded) started.socket = adminSocketPlace(config.dataDir);
    const socketPath = started.socket?.path;
    const services = await openServices(config, 'server', {
      logger,
      ...(socketPath ? { adminSocket: socketPath } : {}),
    });
    started.services = services;
    await services.keyring.ensureActiveKey();
    if (embedded) logger.info({ dataDir: config.dataDir }, 'using the embedded database (PGlite)');

    // With COREGATE_ADMIN_PORT the operations endpoints are served only there (appDepsFrom leaves them out).
    const app = await buildApp({
      ...appDepsFrom(services),
      ...(tls ? { tls } : {}),
      httpsOnly: tokenTransport(config) !== 'loopback',
    });
    started.app = app;
    // A Redis that cannot be reached is logged (by the store) and the server starts anyway: fail open.
    await services.rateLimiter.connect().catch(() => {});
    services.metrics.enableProcessMetrics();
    // The first certificate of the chain is the one served: its end of validity, for the alert.
    if (tls) services.metrics.tlsCertificateExpires(new Date(new X509Certificate(tls.cert).validTo));
    await app.listen({ port: config.port, host: config.host });
    started.opsServer = await startOpsServer(config, services, logger);
    started.consoleServer = await startConsoleServer(config, services, logger, tls);
    const url = listeningUrl(app.server.address() as AddressInfo, tls !== undefined);
    services.issuer.resolve(url);

    // Webhook deliveries in the background: a slow receiver never holds a request.
    services.webhookDispatcher.start();
    services.retentionPruner.start();
    // coregate_dependency_up stays current without a /readyz poller: the alerts need it.
    services.dependencyWatch.start();
    if (socketPath)
      started.adminServer = await serveAdminSocket(
        socketPath,
        adminOperations(services, { server: true, consoleUrl: () => started.consoleServer?.url }),
      );
    logger.info({ url, issuer: services.issuer.get() }, `coregate listening on ${url}`);
    logStartupChecks(config, logger, {
      tls,
      simulator: services.simulator !== undefined,
      now: services.clock.now(),
      unknownSettings: unknownSettingsInEnvironment(),
      issuerWarning: guessedIssuerWarning(config.issuer, config.host, url),
    });
    // Production installations never get a demo client, whatever their database.
    if (embedded && !config.production)
      await welcomeFirstRun(services, { url: services.issuer.get(), simulatorCore: services.simulator !== undefined });
    // The start lines at once, not with the log buffer's next flush.
    logger.flush();

    let stopping: Promise<void> | undefined;
    const stop = () => (stopping ??= closeStarted(started));
    return { app, services, url, adminUrl: started.opsServer?.url, consoleUrl: started.consoleServer?.url, stop };
  } catch (error) {
    await closeStarted(started).catch((closing: unknown) =>
      logger.error({ err: closing }, 'error while closing a failed start'),
    );
    throw error;
  }
}

/** Runs the server until a signal; resolves with the process exit status. */
export async function serve(config: Config): Promise<number> {
  // Before the server's modules and caches fill the heap (each worker runs this too).
  limitHeapGrowth();
  // COREGATE_WORKERS > 1: this process supervises workers that each run the rest (server/cluster.ts).
  if (supervisesWorkers(config))
    return superviseWorkers(config, { shutdownGraceMs: SHUTDOWN_GRACE_MS + SHUTDOWN_FORCE_MS });
  const server = await startServer(config).catch((error: unknown) => {
    // A worker that cannot start must exit, for its supervisor to learn it.
    leaveCluster();
    throw error;
  });
  reportReady(server.url);
  const status = await new Promise<number>((resolve) => {
    let shuttingDown = false;
    const shutdown = (signal: string) => {
      // SIGINT from a terminal reaches the workers and their supervisor, which forwards SIGTERM.
      if (shuttingDown) return;
      shuttingDown = true;
      server.services.logger.info({ signal }, 'shutting down');
      const exitBy = performance.now() + SHUTDOWN_GRACE_MS + SHUTDOWN_FORCE_MS;
      const timer = setTimeout(() => {
        server.services.logger.error('in-flight requests did not finish in time; exiting');
        // Open connections would keep the process alive past the budget; a request still
        // working on the database is rolled back by it when the connection goes.
        server.app.server.closeAllConnections();
        setTimeout(() => process.exit(1), Math.max(0, exitBy - performance.now())).unref();
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
  leaveCluster();
  return status;
}
