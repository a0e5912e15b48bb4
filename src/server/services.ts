/**
 * The wiring shared by the server, the CLI and the tests: configuration →
 * adapters → use cases. Nothing here listens on a port. Each concern is built by
 * its own factory in `compose/`, in dependency order, each returning what it
 * built; this file only calls them and gathers the result.
 */
import type { Logger } from 'pino';
import type { AssociationAdmin } from '../app/association-admin.js';
import type { AuditTrail } from '../app/audit-trail.js';
import type { ClientAuthenticator } from '../app/authenticate-client.js';
import type { ClientDirectory } from '../app/client-directory.js';
import type { ClientRegistry } from '../app/client-registry.js';
import type { CoreSessionKeeper } from '../app/core-session-keeper.js';
import type { AssociationDeregistrar } from '../app/deregister-association.js';
import type { CoreChecker } from '../app/check-core.js';
import type { InstitutionAdmin } from '../app/institution-admin.js';
import type { InstitutionRegistry } from '../app/institution-registry.js';
import type { TokenIssuer } from '../app/issue-token.js';
import type { AccountReader } from '../app/list-accounts.js';
import type { AuditReader } from '../app/read-audit-log.js';
import type { AssociationReader } from '../app/read-association.js';
import type { ReadinessProbe } from '../app/readiness.js';
import type { AssociationRegistrar } from '../app/register-association.js';
import type { RequestThrottle } from '../app/request-throttle.js';
import type { RetentionPruner } from '../app/retention-pruner.js';
import type { TokenRevoker } from '../app/revoke-token.js';
import type { WebhookAdmin } from '../app/webhook-admin.js';
import type { WebhookDispatcher } from '../app/webhook-dispatcher.js';
import { systemClock } from '../adapters/clock/system-clock.js';
import type { CoreBreaker } from '../adapters/core/guarded-core-connector.js';
import type { CoreSimulator } from '../fakes/core-simulator/core-simulator.js';
import type { JoseKeyring } from '../adapters/crypto/jose-keyring.js';
import { createLogger } from '../adapters/logging/logger.js';
import { PrometheusMetrics } from '../adapters/metrics/prometheus.js';
import type { Database } from '../adapters/store/database.js';
import { migrate, type MigrationReport } from '../adapters/store/migrate.js';
import { openDatabase } from '../adapters/store/open-database.js';
import type { Config } from '../config/config.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import type { Clock } from '../ports/clock.js';
import type { CoreConnector } from '../ports/core-connector.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import { followChanges } from './change-followers.js';
import type { DpopProofs } from '../app/dpop-proofs.js';
import type { RevokedAccessTokens } from '../app/revoked-access-tokens.js';
import type { ClientCertificateSource } from '../http/client-certificate.js';
import type { ReplayGuard } from '../ports/replay-guard.js';
import { buildAssociations } from './compose/associations.js';
import { buildAudit } from './compose/audit.js';
import type { Basics } from './compose/basics.js';
import { buildClients } from './compose/clients.js';
import { buildClientSecurity, type ClientSecurityMetadata } from './compose/client-security.js';
import { buildCores } from './compose/cores.js';
import { openCrypto } from './compose/crypto.js';
import { buildRateLimits } from './compose/rate-limits.js';
import { buildReadiness } from './compose/readiness.js';
import { buildRetentionPruner } from './compose/retention.js';
import { buildTokens } from './compose/tokens.js';
import { buildTracing } from './compose/tracing.js';
import type { Tracing } from '../adapters/tracing/open-telemetry.js';
import { buildWebhooks } from './compose/webhooks.js';
import type { IssuerUrl } from './issuer-url.js';

export { IssuerUrl } from './issuer-url.js';
export type { MigrationReport } from '../adapters/store/migrate.js';
/** Thrown by {@link openServices} when another process holds the embedded database. */
export { DataDirBusy } from '../adapters/store/data-dir-lock.js';

export interface Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly database: Database;
  readonly migration: MigrationReport;
  readonly issuer: IssuerUrl;
  readonly clientRegistry: ClientRegistry;
  readonly authenticator: ClientAuthenticator;
  /** Client authentication methods enabled and the algorithms of client proofs, for the metadata. */
  readonly clientSecurity: ClientSecurityMetadata;
  /** Mutual TLS (RFC 8705): where client certificates come from; `undefined` when it is not configured. */
  readonly clientCertificates: ClientCertificateSource | undefined;
  /** DPoP proofs (RFC 9449) at the token endpoint and the gateway. */
  readonly dpopProofs: DpopProofs;
  /** Single use of client assertions' and DPoP proofs' `jti`, in every process. */
  readonly replayGuard: ReplayGuard;
  readonly tokenIssuer: TokenIssuer;
  readonly revoker: TokenRevoker;
  /** Access tokens revoked by their clients, held in memory for the bearer check. */
  readonly revokedAccessTokens: RevokedAccessTokens;
  readonly keyring: JoseKeyring;
  readonly clientDirectory: ClientDirectory;
  /** Announces committed changes of clients, institutions and keys; `undefined` in CLI commands. */
  readonly changeFeed: ChangeFeed | undefined;
  /** The institutions and their guarded cores (the use cases ask it for each call's), cached for COREGATE_INSTITUTION_CACHE_SECONDS. */
  readonly institutions: InstitutionRegistry;
  /** `coregate institutions …`. */
  readonly institutionAdmin: InstitutionAdmin;
  /** `coregate core check --institution ID`. */
  readonly coreChecker: CoreChecker;
  /** The built-in simulator, when `CORE_URL` is unset (and no connector was injected). */
  readonly simulator: CoreSimulator | undefined;
  readonly sessionKeeper: CoreSessionKeeper;
  readonly registrar: AssociationRegistrar;
  readonly accountReader: AccountReader;
  /** This process's metrics (its own registry), for `/metrics`. */
  readonly metrics: PrometheusMetrics;
  /** The `/readyz` checks: database and signing key required, each institution's core reported (docs/behaviour.md#health). */
  readonly readiness: ReadinessProbe;
  /** The circuit breaker of the `default` institution's core; `undefined` when COREGATE_CORE_BREAKER_FAILURES is 0. */
  readonly coreBreaker: CoreBreaker | undefined;
  /** The rate-limit store: Redis with COREGATE_REDIS_URL, else this process's memory. */
  readonly rateLimiter: RateLimiter;
  /** The rate limits of the gateway and the token endpoints, on {@link rateLimiter}. */
  readonly throttle: RequestThrottle;
  /** Appends to the audit log; never fails the caller (docs/behaviour.md#audit-log). */
  readonly audit: AuditTrail;
  /** `coregate audit list`. */
  readonly auditReader: AuditReader;
  /** `coregate sessions list|revoke`. */
  readonly associationAdmin: AssociationAdmin;
  /** `GET /core/sessions`. */
  readonly associationReader: AssociationReader;
  /** `DELETE /core/sessions`. */
  readonly deregistrar: AssociationDeregistrar;
  /** `coregate webhooks …`. */
  readonly webhookAdmin: WebhookAdmin;
  /** Delivers the webhook outbox; `serve` starts it, commands never do. */
  readonly webhookDispatcher: WebhookDispatcher;
  /** Deletes settled webhook rows past their retention and expired refresh tokens; `serve` starts it. */
  readonly retentionPruner: RetentionPruner;
  /** OpenTelemetry tracing, when an OTLP endpoint is configured and the services serve requests. */
  readonly tracing: Tracing | undefined;
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly logger: Logger;
  readonly database: Database;
  readonly clock?: Clock;
  /** Extra cleanup after the database closes (for example releasing the data-dir lock). */
  readonly onClose?: () => void;
  /** A core connector to use for `default` instead of the configured one (tests). */
  readonly core?: CoreConnector;
  /**
   * Listen for changes made by other processes (the change feed); true unless set. A CLI
   * command does not: it serves no tokens, and its own writes notify the servers.
   */
  readonly listenForChanges?: boolean;
  /** Export traces when the configuration asks for them; true unless set (a CLI command does not). */
  readonly tracing?: boolean;
}

/** Builds every use case on an open database, after applying pending migrations. */
export async function createServices(config: Config, options: ServiceOptions): Promise<Services> {
  const { logger, database } = options;
  const clock = options.clock ?? systemClock;
  const migration = await migrate(database);
  if (migration.applied.length > 0) {
    logger.info({ applied: migration.applied.map((m) => m.version), current: migration.current }, 'database migrated');
  }
  const basics: Basics = { config, logger, clock, database };
  const { sealer, hasher } = await openCrypto(basics);
  const changeFeed = options.listenForChanges === false ? undefined : database.changeFeed?.();
  const tokens = buildTokens(basics, { sealer, hasher, changeFeed });
  const security = buildClientSecurity(basics, { issuer: tokens.issuer });
  const metrics = new PrometheusMetrics(database.poolStats ? { poolStats: () => database.poolStats!() } : {});
  const tracing = options.tracing === false ? undefined : await buildTracing(basics, { metrics });
  const cores = buildCores(basics, { sealer, metrics, core: options.core });
  const { institutions } = cores;
  const readiness = buildReadiness(basics, { keyring: tokens.keyring, institutions, metrics });
  const { audit, auditReader } = buildAudit(basics);
  const webhooks = buildWebhooks(basics, { sealer, metrics, audit });
  const retentionPruner = buildRetentionPruner(basics, {
    webhookStore: webhooks.store,
    refreshTokens: tokens.refreshTokens,
  });
  // A commit that queued webhook deliveries nudges this process's dispatcher (when it runs).
  const customers = buildAssociations(basics, {
    sealer,
    institutions,
    audit,
    metrics,
    onEventsQueued: () => webhooks.dispatcher.nudge(),
  });
  const { rateLimiter, throttle } = buildRateLimits(basics, { metrics });
  const clients = buildClients(basics, {
    hasher,
    institutionStore: cores.institutionStore,
    institutions,
    changeFeed,
    assertionCheck: security.assertionCheck,
  });
  const { revokedAccessTokens } = tokens;
  if (changeFeed) {
    await revokedAccessTokens.reload();
    revokedAccessTokens.start((error) =>
      logger.warn({ err: error }, 'revoked access tokens: cannot read them; retrying'),
    );
    followChanges(
      changeFeed,
      {
        clients: clients.clientDirectory,
        institutions,
        keyring: tokens.keyring,
        associations: customers.associations,
        revokedAccessTokens,
      },
      logger,
    );
    // Not live yet: every cache falls back until it is (the feed keeps trying).
    await changeFeed
      .start()
      .catch((error: unknown) => logger.warn({ err: error }, 'change feed: cannot listen yet; retrying'));
  }
  let closed = false;
  return {
    config,
    logger,
    clock,
    database,
    migration,
    issuer: tokens.issuer,
    clientRegistry: clients.clientRegistry,
    authenticator: clients.authenticator,
    clientSecurity: security.metadata,
    clientCertificates: security.clientCertificates,
    dpopProofs: security.dpopProofs,
    replayGuard: security.replayGuard,
    tokenIssuer: tokens.tokenIssuer,
    revoker: tokens.revoker,
    revokedAccessTokens,
    keyring: tokens.keyring,
    clientDirectory: clients.clientDirectory,
    changeFeed,
    institutions,
    institutionAdmin: cores.institutionAdmin,
    coreChecker: cores.coreChecker,
    simulator: cores.simulator,
    sessionKeeper: customers.sessionKeeper,
    registrar: customers.registrar,
    accountReader: customers.accountReader,
    metrics,
    readiness,
    coreBreaker: cores.coreBreaker,
    rateLimiter,
    throttle,
    audit,
    auditReader,
    associationAdmin: customers.associationAdmin,
    associationReader: customers.associationReader,
    deregistrar: customers.deregistrar,
    webhookAdmin: webhooks.admin,
    webhookDispatcher: webhooks.dispatcher,
    retentionPruner,
    tracing,
    async close() {
      if (closed) return;
      closed = true;
      // Audit rows still being written after their request stopped waiting for them.
      await audit.drain();
      await webhooks.dispatcher.stop();
      await retentionPruner.stop();
      await webhooks.sender.close();
      await rateLimiter.close();
      revokedAccessTokens.stop();
      await security.replayGuard.close();
      await institutions.close();
      await changeFeed?.close();
      await database.close();
      // Last: the spans of what closing did are exported too.
      await tracing?.shutdown();
      options.onClose?.();
    },
  };
}

/** Who opens the services: the server (it waits for a CLI command holding the data dir) or a CLI command. */
export type ServicesRole = 'server' | 'command';

export interface OpenServicesOptions {
  /** The logger; by default one at LOG_LEVEL, but at most `warn` for a command at the default `info` (its output is its answer). */
  readonly logger?: Logger;
  /** The server's admin socket, written into the data-dir lock so that CLI commands find it. */
  readonly adminSocket?: string;
}

/**
 * Opens the configured database (taking the embedded one's data directory) and
 * builds the services on it; whatever was opened is closed again when that fails.
 */
export async function openServices(
  config: Config,
  role: ServicesRole,
  options: OpenServicesOptions = {},
): Promise<Services> {
  const logger =
    options.logger ?? createLogger(role === 'command' && config.logLevel === 'info' ? 'warn' : config.logLevel);
  const opened = await openDatabase(config, {
    role,
    ...(options.adminSocket ? { adminSocket: options.adminSocket } : {}),
  });
  if (opened.tightened)
    logger.warn(
      { dataDir: config.dataDir, entries: opened.tightened },
      'the data dir was open to other users: its modes are now 0700 (directories) and 0600 (files)',
    );
  try {
    return await createServices(config, {
      logger,
      database: opened.database,
      onClose: opened.release,
      listenForChanges: role === 'server',
      tracing: role === 'server',
    });
  } catch (error) {
    await opened.database.close().catch(() => {});
    opened.release();
    throw error;
  }
}
