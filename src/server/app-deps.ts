/** What the HTTP app gets from the services: the one mapping, for the server and the tests. */
import type { AppDeps } from '../http/app.js';
import { PACKAGE_INFO } from '../config/package-info.js';
import { opsDeps } from './ops-server.js';
import type { Services } from './services.js';

/**
 * The app's dependencies. The operations endpoints are on the app unless
 * COREGATE_ADMIN_PORT moves them to their own listener (`ops-server.ts`);
 * transport (TLS, HTTPS-only) is the listening server's to add.
 */
export function appDepsFrom(services: Services): AppDeps {
  const { config } = services;
  return {
    logger: services.logger,
    clock: services.clock,
    issuer: services.issuer.get,
    authenticator: services.authenticator,
    tokenIssuer: services.tokenIssuer,
    revoker: services.revoker,
    clientSecurity: services.clientSecurity,
    dpopProofs: services.dpopProofs,
    ...(services.clientCertificates ? { clientCertificates: services.clientCertificates } : {}),
    keyring: services.keyring,
    clientDirectory: services.clientDirectory,
    revokedAccessTokens: services.revokedAccessTokens,
    institutions: services.institutions,
    trustProxy: config.trustProxy,
    gateway: {
      sessions: {
        registrar: services.registrar,
        reader: services.associationReader,
        deregistrar: services.deregistrar,
      },
      accountReader: services.accountReader,
      transactionReader: services.transactionReader,
      transactionSyncer: services.transactionSyncer,
    },
    metrics: services.metrics,
    audit: services.audit,
    throttle: services.throttle,
    requestTimeoutMs: config.requestTimeoutMs,
    databaseTimeoutMs: config.database.timeoutMs,
    version: PACKAGE_INFO.version,
    ...(config.adminPort === undefined ? { ops: opsDeps(services) } : {}),
    ...(services.tracing ? { tracing: true } : {}),
  };
}
