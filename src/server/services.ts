/**
 * The wiring shared by the server, the CLI and the tests: configuration →
 * adapters → use cases. Nothing here listens on a port. Each adapter is built by
 * its own factory (beside it); this file only connects them.
 */
import type { Logger } from 'pino';
import { ClientAuthenticator } from '../app/authenticate-client.js';
import { ClientDirectory } from '../app/client-directory.js';
import { ClientRegistry } from '../app/client-registry.js';
import { TokenIssuer } from '../app/issue-token.js';
import { TokenRevoker } from '../app/revoke-token.js';
import { CoreSessionKeeper } from '../app/core-session-keeper.js';
import { AccountReader } from '../app/list-accounts.js';
import { AssociationRegistrar } from '../app/register-association.js';
import { AuditTrail } from '../app/audit-trail.js';
import { AuditReader } from '../app/read-audit-log.js';
import { AssociationAdmin } from '../app/association-admin.js';
import { ReadinessProbe } from '../app/readiness.js';
import { observedRenewals } from '../app/renewal-events.js';
import { RequestThrottle } from '../app/request-throttle.js';
import { systemClock } from '../adapters/clock/system-clock.js';
import { createCoreConnector, guardCoreConnector } from '../adapters/core/create-core-connector.js';
import type { CircuitBreakerConnector } from '../adapters/core/circuit-breaker-connector.js';
import type { CoreSimulator } from '../adapters/core/simulator/core-simulator.js';
import { AesGcmSealer } from '../adapters/crypto/aes-gcm-sealer.js';
import { encryptionKeys } from '../adapters/crypto/encryption-keys.js';
import { HmacCredentialHasher } from '../adapters/crypto/hmac-credential-hasher.js';
import { JoseKeyring } from '../adapters/crypto/jose-keyring.js';
import { createLogger } from '../adapters/logging/logger.js';
import { PrometheusMetrics } from '../adapters/metrics/prometheus.js';
import { createRateLimiter, limiterErrorLog } from '../adapters/rate-limit/create-rate-limiter.js';
import { registerRateLimitMetrics } from '../adapters/rate-limit/rate-limit-metrics.js';
import { CachingAssociationStore } from '../adapters/store/caching-association-store.js';
import type { Database } from '../adapters/store/database.js';
import { migrate, type MigrationReport } from '../adapters/store/migrate.js';
import { openDatabase } from '../adapters/store/open-database.js';
import { SqlAssociationStore } from '../adapters/store/sql-association-store.js';
import { SqlAuditLog } from '../adapters/store/sql-audit-log.js';
import { SqlClientStore } from '../adapters/store/sql-client-store.js';
import { SqlRefreshTokenStore } from '../adapters/store/sql-refresh-token-store.js';
import { SqlSigningKeyStore } from '../adapters/store/sql-signing-key-store.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../ports/clock.js';
import type { CoreConnector } from '../ports/core-connector.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import { IssuerUrl } from './issuer-url.js';

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
  readonly tokenIssuer: TokenIssuer;
  readonly revoker: TokenRevoker;
  readonly keyring: JoseKeyring;
  readonly clientDirectory: ClientDirectory;
  readonly core: CoreConnector;
  /** The built-in simulator, when `CORE_URL` is unset (and no connector was injected). */
  readonly simulator: CoreSimulator | undefined;
  readonly sessionKeeper: CoreSessionKeeper;
  readonly registrar: AssociationRegistrar;
  readonly accountReader: AccountReader;
  /** This process's metrics (its own registry), for `/metrics`. */
  readonly metrics: PrometheusMetrics;
  /** The `/readyz` checks: database and core. */
  readonly readiness: ReadinessProbe;
  /** The core circuit breaker around `core`; `undefined` when COREGATE_CORE_BREAKER_FAILURES is 0. */
  readonly coreBreaker: CircuitBreakerConnector | undefined;
  /** The rate-limit store: Redis with COREGATE_REDIS_URL, else this process's memory. */
  readonly rateLimiter: RateLimiter;
  /** The rate limits of the gateway and the token endpoints, on {@link rateLimiter}. */
  readonly throttle: RequestThrottle;
  /** Appends to the audit log; never fails the caller (CONTRACT §6). */
  readonly audit: AuditTrail;
  /** `coregate audit list`. */
  readonly auditReader: AuditReader;
  /** `coregate sessions list|revoke`. */
  readonly associationAdmin: AssociationAdmin;
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly logger: Logger;
  readonly database: Database;
  readonly clock?: Clock;
  /** Extra cleanup after the database closes (for example releasing the data-dir lock). */
  readonly onClose?: () => void;
  /** A core connector to use instead of the configured one (tests). */
  readonly core?: CoreConnector;
}

/** Builds every use case on an open database, after applying pending migrations. */
export async function createServices(config: Config, options: ServiceOptions): Promise<Services> {
  const { logger, database } = options;
  const clock = options.clock ?? systemClock;
  const migration = await migrate(database);
  if (migration.applied.length > 0) {
    logger.info({ applied: migration.applied.map((m) => m.version), current: migration.current }, 'database migrated');
  }
  const keys = encryptionKeys(config);
  const sealer = new AesGcmSealer(keys);
  const hasher = new HmacCredentialHasher(keys);
  const clients = new SqlClientStore(database);
  const refreshTokens = new SqlRefreshTokenStore(database);
  const issuer = new IssuerUrl(config.issuer);
  const keyring = new JoseKeyring(new SqlSigningKeyStore(database), sealer, clock, {
    issuer: issuer.get,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
  });
  const tokenOptions = {
    issuer: issuer.get,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
  };
  const { core: connector, simulator } = options.core ? { core: options.core, simulator: undefined } : createCoreConnector(config, clock);
  const metrics = new PrometheusMetrics(database.poolStats ? { poolStats: () => database.poolStats!() } : {});
  const { core, breaker: coreBreaker } = guardCoreConnector(connector, config, clock, metrics, logger);
  const readiness = new ReadinessProbe([
    { name: 'database', check: () => database.ping() },
    { name: 'core', check: async (context) => core.ping?.(context) },
  ]);
  const associations = new CachingAssociationStore(new SqlAssociationStore(database, sealer), clock, config.associationCacheSeconds);
  const auditLog = new SqlAuditLog(database);
  // A failed audit write is logged at error level with the event, never turned into an error answer.
  const audit = new AuditTrail(auditLog, clock, {
    onFailure: (error, event) => logger.error({ err: error, audit: event }, 'audit log write failed'),
  });
  const sessionKeeper = new CoreSessionKeeper(
    associations,
    core,
    clock,
    { skewSeconds: config.sessionSkewSeconds, coreTimeoutMs: config.coreTimeoutMs },
    observedRenewals(audit, metrics),
  );
  const rateLimiter = createRateLimiter(config, clock, logger);
  const throttle = new RequestThrottle(rateLimiter, config.rateLimits, limiterErrorLog(logger, clock));
  registerRateLimitMetrics(metrics.registry, throttle);
  let closed = false;
  return {
    config,
    logger,
    clock,
    database,
    migration,
    issuer,
    clientRegistry: new ClientRegistry(clients, hasher, clock),
    authenticator: new ClientAuthenticator(clients, hasher, clock),
    tokenIssuer: new TokenIssuer(refreshTokens, hasher, keyring, clock, tokenOptions),
    revoker: new TokenRevoker(refreshTokens, hasher, clock),
    keyring,
    clientDirectory: new ClientDirectory(clients, clock, config.clientCacheSeconds),
    core,
    simulator,
    sessionKeeper,
    registrar: new AssociationRegistrar(associations, core, clock),
    accountReader: new AccountReader(associations, core, sessionKeeper),
    metrics,
    readiness,
    coreBreaker,
    rateLimiter,
    throttle,
    audit,
    auditReader: new AuditReader(auditLog),
    associationAdmin: new AssociationAdmin(associations, audit),
    async close() {
      if (closed) return;
      closed = true;
      // Audit rows still being written after their request stopped waiting for them.
      await audit.drain();
      await rateLimiter.close();
      await core.close();
      await database.close();
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
export async function openServices(config: Config, role: ServicesRole, options: OpenServicesOptions = {}): Promise<Services> {
  const logger = options.logger ?? createLogger(role === 'command' && config.logLevel === 'info' ? 'warn' : config.logLevel);
  const opened = await openDatabase(config, { role, ...(options.adminSocket ? { adminSocket: options.adminSocket } : {}) });
  try {
    return await createServices(config, { logger, database: opened.database, onClose: opened.release });
  } catch (error) {
    await opened.database.close().catch(() => {});
    opened.release();
    throw error;
  }
}
