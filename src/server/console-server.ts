/**
 * The operator console's listener (docs/operations.md#console): off unless
 * COREGATE_CONSOLE_PORT is set; on COREGATE_CONSOLE_HOST, with the server's TLS certificate
 * when it has one. The console runs the admin operations in this process, each write audited
 * with the signed-in operator's name.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Config } from '../config/config.js';
import { RateSampler } from '../adapters/metrics/rate-sampler.js';
import type { TlsCredentials } from '../adapters/tls/read-tls-credentials.js';
import { DEFAULT_INSTITUTION } from '../domain/institution.js';
import { buildConsoleApp, type ConsoleDeps } from '../console/console-app.js';
import type { InstitutionState, OverviewSource } from '../console/overview-source.js';
import { adminOperations, executeAdminOperation, type AdminOperationsOptions } from './admin-operations.js';
import type { Services } from './services.js';

export interface ConsoleServer {
  readonly app: FastifyInstance;
  /** `http(s)://host:port` with the port actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

/** Each institution's core as `/readyz` sees it now, and its breaker as the metrics last saw it. */
function overviewSource(services: Services, sampler: RateSampler): OverviewSource {
  return {
    samples: sampler,
    async institutions(): Promise<InstitutionState[]> {
      const [institutions, report, breakers] = await Promise.all([
        services.institutionAdmin.list(),
        services.readiness.check({ requestId: `console-${randomUUID()}` }),
        sampler.circuitStates(),
      ]);
      return institutions.map((institution) => {
        const check = report.checks[institution.id === DEFAULT_INSTITUTION ? 'core' : `core:${institution.id}`];
        return {
          id: institution.id,
          name: institution.name,
          coreKind: institution.coreKind,
          enabled: institution.enabled,
          core: check ?? 'not checked',
          breaker: breakers.get(institution.id) ?? 'none',
        };
      });
    },
  };
}

/** The console's dependencies on this process's services (tests build the app from them too). */
export function consoleDeps(
  services: Services,
  logger: FastifyBaseLogger,
  options: { sampler: RateSampler; tls?: TlsCredentials | undefined; consoleUrl?: () => string | undefined },
): ConsoleDeps {
  return {
    logger,
    signIn: services.consoleSignIn,
    operations: (actor) => {
      const adminOptions: AdminOperationsOptions = {
        server: true,
        actor,
        ...(options.consoleUrl ? { consoleUrl: options.consoleUrl } : {}),
      };
      const handlers = adminOperations(services, adminOptions);
      return { call: (name, args) => executeAdminOperation(handlers, name, args) };
    },
    overview: overviewSource(services, options.sampler),
    https: options.tls,
  };
}

/** Listens on `config.consolePort` (0 picks a free one); `undefined` when the setting is unset. */
export async function startConsoleServer(
  config: Config,
  services: Services,
  logger: FastifyBaseLogger,
  tls: TlsCredentials | undefined,
): Promise<ConsoleServer | undefined> {
  if (config.consolePort === undefined) return undefined;
  const sampler = new RateSampler(services.metrics.registry);
  // Known once listening: a link asked for before then names the configured address.
  const bound: { url?: string } = {};
  const app = await buildConsoleApp(consoleDeps(services, logger, { sampler, tls, consoleUrl: () => bound.url }));
  await app.listen({ port: config.consolePort, host: config.consoleHost });
  sampler.start();
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${tls ? 'https' : 'http'}://${host === '0.0.0.0' || host === '[::]' ? 'localhost' : host}:${address.port}`;
  logger.info(
    { url: `${url}/console` },
    `operator console on ${url}/console (sign in: bin/coregate console link --operator NAME)`,
  );
  bound.url = url;
  return {
    app,
    url,
    close: async () => {
      sampler.stop();
      await app.close();
    },
  };
}
