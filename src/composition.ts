/**
 * Wiring shared by the server, the CLI and the tests: configuration → adapters →
 * use cases. Nothing here listens on a port.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ClientAuthenticator } from './app/authenticate-client.js';
import { ClientDirectory } from './app/client-directory.js';
import { ClientRegistry } from './app/client-registry.js';
import { TokenIssuer } from './app/issue-token.js';
import { TokenRevoker } from './app/revoke-token.js';
import { CoreSessionKeeper } from './app/core-session-keeper.js';
import { AccountReader } from './app/list-accounts.js';
import { SessionRegistrar } from './app/register-session.js';
import { HttpCoreConnector } from './adapters/core/http-core-connector.js';
import { InProcessCoreConnector } from './adapters/core/in-process-core-connector.js';
import { CoreSimulator } from './adapters/core/simulator/core-simulator.js';
import { SqlAssociationStore } from './adapters/store/sql-association-store.js';
import { CachingAssociationStore } from './adapters/store/caching-association-store.js';
import { systemClock } from './adapters/clock/system-clock.js';
import { AesGcmSealer } from './adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey, type EncryptionKey } from './adapters/crypto/encryption-keys.js';
import { HmacCredentialHasher } from './adapters/crypto/hmac-credential-hasher.js';
import { JoseKeyring } from './adapters/crypto/jose-keyring.js';
import { loadOrCreateKeyFile } from './adapters/crypto/key-file.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireDataDirLock, DataDirBusy, type DataDirLock, type LockHolder } from './adapters/store/data-dir-lock.js';
import type { Database } from './adapters/store/database.js';
import { migrate, type MigrationReport } from './adapters/store/migrate.js';
import { PgliteDatabase } from './adapters/store/pglite-database.js';
import { PostgresDatabase } from './adapters/store/postgres-database.js';
import { SqlClientStore } from './adapters/store/sql-client-store.js';
import { SqlRefreshTokenStore } from './adapters/store/sql-refresh-token-store.js';
import { SqlSigningKeyStore } from './adapters/store/sql-signing-key-store.js';
import type { Config } from './config/config.js';
import type { Clock } from './ports/clock.js';
import type { CoreConnector } from './ports/core-connector.js';
// Audit log and session administration (CONTRACT §6).
import { AuditTrail, auditedRenewals } from './app/audit-trail.js';
import { AuditReader } from './app/read-audit-log.js';
import { SessionAdmin } from './app/session-admin.js';
import { SqlAuditLog } from './adapters/store/sql-audit-log.js';
// Operations: metrics, readiness, the core circuit breaker.
import { CircuitBreakerConnector } from './adapters/core/circuit-breaker-connector.js';
import { InstrumentedCoreConnector } from './adapters/core/instrumented-core-connector.js';
import { PrometheusMetrics } from './adapters/metrics/prometheus.js';
import { ReadinessProbe } from './app/readiness.js';
// Operations: rate limits.
import { MemoryRateLimiter } from './adapters/rate-limit/memory-rate-limiter.js';
import { RedisRateLimiter } from './adapters/rate-limit/redis-rate-limiter.js';
import { registerRateLimitMetrics } from './adapters/rate-limit/rate-limit-metrics.js';
import { RequestThrottle } from './app/request-throttle.js';
import type { RateLimiter } from './ports/rate-limiter.js';

/** The issuer URL, fixed once the listening address is known. */
export class IssuerUrl {
  private value: string | undefined;
  constructor(configured: string | undefined) {
    this.value = configured;
  }
  get = (): string => {
    if (this.value === undefined) throw new Error('issuer URL used before the server listens');
    return this.value;
  };
  /** Sets the URL unless configuration fixed it. */
  resolve(url: string): void {
    this.value ??= url.replace(/\/+$/, '');
  }
}

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
  readonly registrar: SessionRegistrar;
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
  // Audit log and session administration (CONTRACT §6).
  /** Appends to the audit log; never fails the caller. */
  readonly audit: AuditTrail;
  /** `coregate audit list`. */
  readonly auditReader: AuditReader;
  /** `coregate sessions list|revoke`. */
  readonly sessionAdmin: SessionAdmin;
  close(): Promise<void>;
}

export interface OpenedDatabase {
  readonly database: Database;
  /** Releases what opening took (the data-dir lock); call after `database.close()`. */
  readonly release: () => void;
}

/** How long a starting server waits for a CLI command that holds the data directory. */
const COMMAND_HOLD_WAIT_MS = 15_000;

/**
 * Takes the data directory. A CLI command holds it only for seconds, so a server
 * waits for it instead of failing; another server holding it is an error at once.
 */
async function acquireWaitingForCommands(dataDir: string, holder: Omit<LockHolder, 'pid'>): Promise<DataDirLock> {
  const deadline = Date.now() + COMMAND_HOLD_WAIT_MS;
  for (;;) {
    try {
      return acquireDataDirLock(dataDir, holder);
    } catch (error) {
      const waitable = error instanceof DataDirBusy && error.holder.role === 'command' && holder.role === 'server';
      if (!waitable || Date.now() >= deadline) throw error;
    }
    await sleep(100);
  }
}

/** Opens PostgreSQL, or the embedded database after taking its data directory. */
export async function openDatabase(config: Config, holder: Omit<LockHolder, 'pid'>): Promise<OpenedDatabase> {
  if (config.databaseUrl !== undefined) {
    return {
      database: new PostgresDatabase({ connectionString: config.databaseUrl, poolMax: config.databasePoolMax }),
      release: () => {},
    };
  }
  const lock = await acquireWaitingForCommands(config.dataDir, holder);
  try {
    return { database: await PgliteDatabase.open(join(config.dataDir, 'pg')), release: () => lock.release() };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * The configured key first (it seals), then the data dir's generated key and the
 * previous keys (they still open old values and verify old digests).
 */
export function encryptionKeys(config: Config): [EncryptionKey, ...EncryptionKey[]] {
  const keys: EncryptionKey[] = [];
  if (config.encryptionKey) keys.push(encryptionKey(config.encryptionKey));
  if (config.databaseUrl === undefined) {
    const generated = encryptionKey(loadOrCreateKeyFile(config.dataDir));
    if (!keys.some((key) => key.id === generated.id)) keys.push(generated);
  }
  for (const material of config.previousEncryptionKeys) {
    const previous = encryptionKey(material);
    if (!keys.some((key) => key.id === previous.id)) keys.push(previous);
  }
  if (keys.length === 0) throw new Error('no encryption key: set COREGATE_ENCRYPTION_KEY');
  return keys as [EncryptionKey, ...EncryptionKey[]];
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

/** The configured core: the HTTP connector for `CORE_URL`, else the simulator in process. */
export function createCoreConnector(config: Config, clock: Clock): { core: CoreConnector; simulator: CoreSimulator | undefined } {
  if (config.coreUrl !== undefined) {
    return {
      core: new HttpCoreConnector({ baseUrl: config.coreUrl, apiKey: config.coreApiKey, timeoutMs: config.coreTimeoutMs }),
      simulator: undefined,
    };
  }
  const simulator = new CoreSimulator({ clock, sessionTtlSeconds: config.simulatorSessionTtlSeconds });
  return { core: new InProcessCoreConnector(simulator, { timeoutMs: config.coreTimeoutMs }), simulator };
}

/**
 * The core as the use cases see it: every call counted and timed, behind the
 * circuit breaker (unless COREGATE_CORE_BREAKER_FAILURES is 0), whichever
 * connector was configured or injected.
 */
function guardedCore(
  connector: CoreConnector,
  config: Config,
  clock: Clock,
  metrics: PrometheusMetrics,
  logger: Logger,
): { core: CoreConnector; breaker: CircuitBreakerConnector | undefined } {
  const instrumented = new InstrumentedCoreConnector(connector, metrics);
  if (config.coreBreakerFailures === 0) return { core: instrumented, breaker: undefined };
  const breaker = new CircuitBreakerConnector(instrumented, {
    minimumCalls: config.coreBreakerFailures,
    cooldownSeconds: config.coreBreakerCooldownSeconds,
    onStateChange: (state, cause, reqId) => {
      metrics.circuitState(state);
      // Named after the request whose core call changed the state, like that request's own lines.
      if (state === 'open') {
        const reason = cause instanceof Error ? cause.message : undefined;
        logger.warn({ reqId, reason, cooldownSeconds: config.coreBreakerCooldownSeconds }, 'core circuit breaker open: core calls refused with 503 until a probe succeeds');
      } else {
        logger.info({ reqId }, `core circuit breaker ${state === 'closed' ? 'closed: core calls go through again' : 'half-open: one probe call goes through'}`);
      }
    },
    onRejected: (operation) => metrics.circuitRejected(operation),
  });
  return { core: breaker, breaker };
}

/** How long a request waits for its audit row before answering without it (the write goes on). */
const AUDIT_WAIT_MS = 2_000;

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
  const { core, breaker: coreBreaker } = guardedCore(connector, config, clock, metrics, logger);
  const readiness = new ReadinessProbe([
    { name: 'database', check: () => database.ping() },
    { name: 'core', check: async (context) => core.ping?.(context) },
  ]);
  const associations = new CachingAssociationStore(new SqlAssociationStore(database, sealer), clock, config.associationCacheSeconds);
  // Audit log: a request waits for its row (durable) but at most AUDIT_WAIT_MS, and a
  // failed write is logged at error level with the event, never turned into an error answer.
  const auditLog = new SqlAuditLog(database);
  const audit = new AuditTrail(auditLog, clock, {
    waitMs: AUDIT_WAIT_MS,
    onFailure: (error, event) => logger.error({ err: error, audit: event }, 'audit log write failed'),
  });
  const renewalAudit = auditedRenewals(audit);
  const sessionKeeper = new CoreSessionKeeper(
    associations,
    core,
    clock,
    {
      skewSeconds: config.sessionSkewSeconds,
      // A renewal lease outlives one core call, so a crashed renewer blocks others only briefly.
      leaseSeconds: Math.ceil(config.coreTimeoutMs / 1000) + 5,
    },
    {
      onRenewal: (association, context) => {
        metrics.sessionRenewed();
        return renewalAudit.onRenewal(association, context);
      },
      onReregistrationRequired: renewalAudit.onReregistrationRequired,
      onJoin: () => metrics.singleFlightWait('in_process'),
      onWait: () => metrics.singleFlightWait('cross_process'),
    },
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
    authenticator: new ClientAuthenticator(clients, hasher),
    tokenIssuer: new TokenIssuer(refreshTokens, hasher, keyring, clock, tokenOptions),
    revoker: new TokenRevoker(refreshTokens, hasher, clock),
    keyring,
    clientDirectory: new ClientDirectory(clients, clock, config.clientCacheSeconds),
    core,
    simulator,
    sessionKeeper,
    registrar: new SessionRegistrar(associations, core, clock),
    accountReader: new AccountReader(associations, core, sessionKeeper),
    metrics,
    readiness,
    coreBreaker,
    rateLimiter,
    throttle,
    // Audit log and session administration.
    audit,
    auditReader: new AuditReader(auditLog),
    sessionAdmin: new SessionAdmin(associations, audit),
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

// ---------------------------------------------------------------------------
// Operations: rate limits (README "Rate limits").

/**
 * The configured rate-limit store. Redis connects lazily (a CLI command that never
 * limits anything never connects); the server calls `connect()` at start.
 */
export function createRateLimiter(config: Config, clock: Clock, logger: Logger): RateLimiter {
  if (config.redisUrl === undefined) return new MemoryRateLimiter({ clock });
  return new RedisRateLimiter({
    url: config.redisUrl,
    clock,
    keyPrefix: config.redisKeyPrefix,
    onConnectionChange: (state, error) => {
      if (state === 'down') {
        logger.error({ err: { message: error?.message } }, 'rate-limit store (COREGATE_REDIS_URL) unreachable: requests are admitted without rate limits until it is back');
      } else {
        logger.info('rate-limit store (COREGATE_REDIS_URL) reachable again');
      }
    },
  });
}

/** Logs a failing limiter call at most every 10 s (an outage would otherwise log every request). */
function limiterErrorLog(logger: Logger, clock: Clock): (error: unknown) => void {
  let lastMs = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (error) => {
    const now = clock.now().getTime();
    if (now - lastMs < 10_000) {
      suppressed += 1;
      return;
    }
    lastMs = now;
    logger.error(
      { err: { message: error instanceof Error ? error.message : String(error) }, suppressedSinceLast: suppressed },
      'rate limiter failed: request admitted without a rate limit',
    );
    suppressed = 0;
  };
}
