/**
 * The wiring shared by the server, the CLI and the tests: configuration →
 * adapters → use cases. Nothing here listens on a port. Each adapter is built by
 * its own factory (beside it); this file only connects them.
 */
import type { Logger } from 'pino';
import { ClientAuthenticator } from '../app/authenticate-client.js';
import { ClientDirectory } from '../app/client-directory.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import { followChanges } from './change-followers.js';
import { ClientRegistry } from '../app/client-registry.js';
import { TokenIssuer } from '../app/issue-token.js';
import { TokenRevoker } from '../app/revoke-token.js';
import { RevokedAccessTokens } from '../app/revoked-access-tokens.js';
import { SqlRevokedAccessTokenStore } from '../adapters/store/sql-revoked-access-token-store.js';
import { CoreSessionKeeper } from '../app/core-session-keeper.js';
import { AccountReader } from '../app/list-accounts.js';
import { AssociationRegistrar } from '../app/register-association.js';
import { AuditTrail } from '../app/audit-trail.js';
import { AuditReader } from '../app/read-audit-log.js';
import { AssociationAdmin } from '../app/association-admin.js';
import { AssociationReader } from '../app/read-association.js';
import { AssociationDeregistrar } from '../app/deregister-association.js';
import type { CoreSessionEndFailure } from '../app/end-core-session.js';
import { WebhookAdmin } from '../app/webhook-admin.js';
import { WebhookDispatcher } from '../app/webhook-dispatcher.js';
import { RetentionPruner } from '../app/retention-pruner.js';
import { registerWebhookMetrics } from '../adapters/metrics/webhook-metrics.js';
import { SqlWebhookStore } from '../adapters/store/sql-webhook-store.js';
import { WebhookTargetPolicy } from '../adapters/webhooks/target-policy.js';
import { UndiciWebhookSender } from '../adapters/webhooks/undici-webhook-sender.js';
import { ReadinessProbe } from '../app/readiness.js';
import { observedRenewals } from '../app/renewal-events.js';
import { RequestThrottle } from '../app/request-throttle.js';
import { systemClock } from '../adapters/clock/system-clock.js';
import { createCoreConnector, guardCoreConnector, institutionCoreFactory } from '../adapters/core/create-core-connector.js';
import { InstitutionRegistry } from '../app/institution-registry.js';
import { InstitutionAdmin } from '../app/institution-admin.js';
import { SqlInstitutionStore } from '../adapters/store/sql-institution-store.js';
import { DEFAULT_INSTITUTION } from '../domain/institution.js';
import type { CoreBreaker } from '../adapters/core/guarded-core-connector.js';
import type { CoreSimulator } from '../adapters/core/simulator/core-simulator.js';
import { AesGcmSealer } from '../adapters/crypto/aes-gcm-sealer.js';
import { encryptionKeys } from '../adapters/crypto/encryption-keys.js';
import { HmacCredentialHasher } from '../adapters/crypto/hmac-credential-hasher.js';
import { JoseKeyring } from '../adapters/crypto/jose-keyring.js';
import { CLIENT_ASSERTION_ALGORITHMS, JoseClientAssertionVerifier } from '../adapters/crypto/jose-client-assertion.js';
import { createReplayGuard } from '../adapters/replay/create-replay-guard.js';
import { JoseDpopProofVerifier } from '../adapters/crypto/jose-dpop-proof.js';
import { DpopProofs } from '../app/dpop-proofs.js';
import { X509Certificate } from 'node:crypto';
import { readClientCa } from '../adapters/tls/read-tls-credentials.js';
import { trustedProxies, type ClientCertificateSource } from '../http/client-certificate.js';
import type { ReplayGuard } from '../ports/replay-guard.js';
import { createLogger } from '../adapters/logging/logger.js';
import { PrometheusMetrics } from '../adapters/metrics/prometheus.js';
import { createRateLimiter, limiterErrorLog } from '../adapters/rate-limit/create-rate-limiter.js';
import { BreakerRateLimiter } from '../adapters/rate-limit/breaker-rate-limiter.js';
import { registerRateLimitMetrics, registerRateLimitStoreMetrics } from '../adapters/rate-limit/rate-limit-metrics.js';
import { CachingAssociationStore } from '../adapters/store/caching-association-store.js';
import type { Database } from '../adapters/store/database.js';
import { migrate, type MigrationReport } from '../adapters/store/migrate.js';
import { openDatabase } from '../adapters/store/open-database.js';
import { SqlAssociationStore } from '../adapters/store/sql-association-store.js';
import { SqlAuditLog } from '../adapters/store/sql-audit-log.js';
import { SqlClientStore } from '../adapters/store/sql-client-store.js';
import { SqlRefreshTokenStore } from '../adapters/store/sql-refresh-token-store.js';
import { SqlSigningKeyStore } from '../adapters/store/sql-signing-key-store.js';
import { ConfigError, type Config } from '../config/config.js';
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
  /** Client authentication methods enabled and the algorithms of client proofs, for the metadata. */
  readonly clientSecurity: {
    readonly authMethods: readonly string[];
    readonly authSigningAlgorithms: readonly string[];
    readonly dpopSigningAlgorithms: readonly string[];
    readonly tlsCertificateBoundTokens: boolean;
  };
  /** Mutual TLS (RFC 8705): where client certificates come from; `undefined` when it is not configured. */
  readonly clientCertificates: ClientCertificateSource | undefined;
  /** DPoP proofs (RFC 9449) at the token endpoint and the gateway. */
  readonly dpopProofs: DpopProofs;
  /** Single use of client assertions' and DPoP proofs' `jti`, in every process. */
  readonly replayGuard: ReplayGuard;
  readonly keyring: JoseKeyring;
  readonly clientDirectory: ClientDirectory;
  /** Access tokens revoked by their clients, held in memory for the bearer check. */
  readonly revokedAccessTokens: RevokedAccessTokens;
  /** Announces committed changes of clients, institutions and keys; `undefined` in CLI commands. */
  readonly changeFeed: ChangeFeed | undefined;
  /** The institutions and their guarded cores (the use cases ask it for each call's), cached for COREGATE_INSTITUTION_CACHE_SECONDS. */
  readonly institutions: InstitutionRegistry;
  /** `coregate institutions …`. */
  readonly institutionAdmin: InstitutionAdmin;
  /** The built-in simulator, when `CORE_URL` is unset (and no connector was injected). */
  readonly simulator: CoreSimulator | undefined;
  readonly sessionKeeper: CoreSessionKeeper;
  readonly registrar: AssociationRegistrar;
  readonly accountReader: AccountReader;
  /** This process's metrics (its own registry), for `/metrics`. */
  readonly metrics: PrometheusMetrics;
  /** The `/readyz` checks: database and core. */
  readonly readiness: ReadinessProbe;
  /** The circuit breaker of the `default` institution's core; `undefined` when COREGATE_CORE_BREAKER_FAILURES is 0. */
  readonly coreBreaker: CoreBreaker | undefined;
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
}

/**
 * Refuses to start when none of the configured encryption keys opens what the
 * database holds (the active signing key is sealed like every secret): such a
 * process would answer every client `invalid_client` and its JWKS with 500. One
 * line names the variable and the key id the data needs.
 */
async function requireKeyForStoredData(store: SqlSigningKeyStore, keys: readonly { readonly id: string }[], clock: Clock): Promise<void> {
  const active = (await store.listPublished(clock.now())).find((key) => key.retiredAt === null);
  if (!active) return;
  const needed = active.privateSealed.split('.')[1];
  if (needed === undefined || keys.some((key) => key.id === needed)) return;
  throw new ConfigError(
    'COREGATE_ENCRYPTION_KEY',
    `does not open the stored data: it was sealed with the key whose id is ${needed} (this process has ${keys.map((key) => key.id).join(', ')}); set that key, or keep it in COREGATE_PREVIOUS_ENCRYPTION_KEYS after a rotation`,
  );
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
  await requireKeyForStoredData(new SqlSigningKeyStore(database), keys, clock);
  const sealer = new AesGcmSealer(keys);
  const hasher = new HmacCredentialHasher(keys);
  const clients = new SqlClientStore(database);
  const changeFeed = options.listenForChanges === false ? undefined : database.changeFeed?.();
  const refreshTokens = new SqlRefreshTokenStore(database);
  const issuer = new IssuerUrl(config.issuer);
  // RFC 9068 §2.2: tokens are for the gateway; by default its URL under the issuer.
  const audience = (): string => config.tokenAudience ?? `${issuer.get()}/core`;
  const keyring = new JoseKeyring(new SqlSigningKeyStore(database), sealer, clock, {
    issuer: issuer.get,
    audience,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
  });
  const tokenOptions = {
    issuer: issuer.get,
    audience,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
  };
  const { core: connector, simulator } = options.core ? { core: options.core, simulator: undefined } : createCoreConnector(config, clock);
  const metrics = new PrometheusMetrics(database.poolStats ? { poolStats: () => database.poolStats!() } : {});
  const defaultCore = guardCoreConnector(connector, config, metrics, logger);
  const institutionStore = new SqlInstitutionStore(database, sealer);
  const institutions = new InstitutionRegistry(institutionStore, institutionCoreFactory({ config, metrics, logger, defaultCore }), clock, {
    cacheSeconds: config.institutionCacheSeconds,
    onError: (error, institution) => logger.error({ err: error, institution }, 'institutions: reload or core set-up failed'),
  });
  // Read on first use (not here): a CLI command that never calls a core builds no connector.
  // The core lines are reported, never a reason to be unready (CONTRACT §3 Health).
  // CONTRACT §3 "Health": only what this instance cannot serve without (database, signing
  // key) makes it unready; each institution's core is reported (body and
  // coregate_dependency_up) but never takes the instance out of the load balancer.
  const readiness = new ReadinessProbe(
    async () => [
      { name: 'database', check: () => database.ping() },
      { name: 'signing_key', check: async () => void (await keyring.jwks()) },
      ...(await institutions.enabledCores().catch(() => [])).map(({ id, core: each }) => ({
        name: id === DEFAULT_INSTITUTION ? 'core' : `core:${id}`,
        required: false,
        check: async (context: { requestId: string }) => each.ping?.({ requestId: context.requestId, institution: id }),
      })),
    ],
    undefined,
    (name, ok) => metrics.readinessCheck(name, ok),
  );
  const auditLog = new SqlAuditLog(database);
  // A failed audit write is logged at error level with the event, never turned into an error answer.
  const audit = new AuditTrail(auditLog, clock, {
    onFailure: (error, event) => logger.error({ err: error, audit: event }, 'audit log write failed'),
  });
  // Webhooks: a commit that queued deliveries nudges this process's dispatcher (when it runs).
  let nudgeDispatcher = () => {};
  const associations = new CachingAssociationStore(
    new SqlAssociationStore(database, sealer, { onEventsQueued: () => nudgeDispatcher() }),
    clock,
    config.associationCacheSeconds,
  );
  const webhookStore = new SqlWebhookStore(database, sealer);
  const targetPolicy = { production: config.production, allowPrivate: config.webhookAllowPrivate };
  const webhookSender = new UndiciWebhookSender(targetPolicy);
  const webhookMetrics = registerWebhookMetrics(metrics.registry, () => webhookStore.queueStats(clock.now()));
  const webhookDispatcher = new WebhookDispatcher(webhookStore, webhookSender, clock, {
    retryScheduleSeconds: config.webhookRetryScheduleSeconds,
    onAttempt: (delivery, outcome) => {
      webhookMetrics.attempt(outcome.kind);
      // Identifiers, the status and our short reason only: never the body, the secret or the receiver's answer.
      logger.info(
        { webhookDelivery: delivery.id, eventType: delivery.eventType, endpoint: delivery.endpointId, attempt: delivery.attempts + 1, outcome: outcome.kind, status: outcome.status, ...('error' in outcome ? { reason: outcome.error } : {}) },
        'webhook delivery attempted',
      );
    },
    onEndpointGone: (delivery) => {
      logger.warn({ endpoint: delivery.endpointId, platform: delivery.platform }, 'webhook endpoint disabled: its receiver answered 410 Gone (coregate webhooks enable ID sends to it again)');
      return audit.record({ type: 'webhook.disabled', outcome: 'success', reason: delivery.endpointId, actor: 'client', clientId: null, platform: delivery.platform, customerId: null, requestId: null });
    },
    onRefused: (delivery, reason) =>
      logger.warn({ webhookDelivery: delivery.id, endpoint: delivery.endpointId, reason }, 'webhook delivery failed: its endpoint breaks the target policy this server applies'),
    onError: (error) => logger.error({ err: error }, 'webhook dispatcher round failed'),
  });
  nudgeDispatcher = () => webhookDispatcher.nudge();
  const retentionPruner = new RetentionPruner(webhookStore, refreshTokens, clock, {
    webhookRetentionDays: config.webhookRetentionDays,
    onPruned: (deleted) => logger.info(deleted, 'retention: deleted settled webhook rows and expired refresh tokens'),
    onError: (error) => logger.error({ err: error }, 'retention pass failed'),
  });
  const sessionKeeper = new CoreSessionKeeper(
    associations,
    institutions,
    clock,
    { skewSeconds: config.sessionSkewSeconds, coreTimeoutMs: config.coreTimeoutMs },
    observedRenewals(audit, metrics),
  );
  let throttle: RequestThrottle | undefined;
  const rateLimiter = createRateLimiter(config, clock, logger, (error) => throttle?.recordStoreFailure(error));
  throttle = new RequestThrottle(rateLimiter, config.rateLimits, limiterErrorLog(logger, clock));
  registerRateLimitMetrics(metrics.registry, throttle);
  // The association is gone either way; the core's session expires there on its own.
  const coreSessionEndFailure: CoreSessionEndFailure = (error, association, context) =>
    logger.warn({ err: error, platform: association.platform, customerId: association.customerId, requestId: context.requestId }, 'the core did not end the session of a deregistered customer');
  if (rateLimiter instanceof BreakerRateLimiter) registerRateLimitStoreMetrics(metrics.registry, rateLimiter);
  // The one cache of client records, for the token endpoint and the bearer check.
  const clientDirectory = new ClientDirectory(clients, clock, config.clientCacheSeconds, undefined, changeFeed);
  const revokedTokenStore = new SqlRevokedAccessTokenStore(database);
  const revokedAccessTokens = new RevokedAccessTokens(revokedTokenStore, clock, changeFeed);
  if (changeFeed) {
    await revokedAccessTokens.reload();
    revokedAccessTokens.start((error) => logger.warn({ err: error }, 'revoked access tokens: cannot read them; retrying'));
    followChanges(changeFeed, { clients: clientDirectory, institutions, keyring, associations, revokedAccessTokens }, logger);
    // Not live yet: every cache falls back until it is (the feed keeps trying).
    await changeFeed.start().catch((error: unknown) => logger.warn({ err: error }, 'change feed: cannot listen yet; retrying'));
  }
  const replayGuard = createReplayGuard(config, database, logger);
  const assertionCheck = {
    verifier: new JoseClientAssertionVerifier(),
    replays: replayGuard,
    // RFC 7523 §3: the issuer, or the token endpoint's URL (RFC 7523 and FAPI 2.0 differ on which).
    audiences: () => [issuer.get(), `${issuer.get()}/oauth2/token`],
  };
  const dpopProofs = new DpopProofs(new JoseDpopProofVerifier(), replayGuard);
  const clientCertificates = mutualTls(config);
  let closed = false;
  return {
    config,
    logger,
    clock,
    database,
    migration,
    issuer,
    clientRegistry: new ClientRegistry(clients, hasher, clock, institutionStore, (id) => clientDirectory.forget(id)),
    authenticator: new ClientAuthenticator(clientDirectory, hasher, institutions, clock, assertionCheck),
    clientSecurity: {
      authMethods: ['client_secret_basic', 'private_key_jwt', ...(clientCertificates ? ['tls_client_auth', 'self_signed_tls_client_auth'] : [])],
      authSigningAlgorithms: CLIENT_ASSERTION_ALGORITHMS,
      dpopSigningAlgorithms: dpopProofs.algorithms,
      tlsCertificateBoundTokens: clientCertificates !== undefined,
    },
    clientCertificates,
    dpopProofs,
    replayGuard,
    tokenIssuer: new TokenIssuer(refreshTokens, hasher, keyring, clock, tokenOptions),
    revoker: new TokenRevoker(refreshTokens, hasher, clock, { verifier: keyring, store: revokedTokenStore, revoked: revokedAccessTokens }),
    keyring,
    clientDirectory,
    revokedAccessTokens,
    changeFeed,
    institutions,
    institutionAdmin: new InstitutionAdmin(institutionStore, clock, {
      coreUrl: config.coreUrl,
      hasApiKey: config.coreApiKey !== undefined && config.coreApiKey !== '',
      coreTimeoutMs: config.coreTimeoutMs,
      onChange: () => institutions.forgetAll(),
    }),
    simulator,
    sessionKeeper,
    registrar: new AssociationRegistrar(associations, institutions, clock),
    accountReader: new AccountReader(associations, institutions, sessionKeeper),
    metrics,
    readiness,
    coreBreaker: defaultCore.breaker,
    rateLimiter,
    throttle,
    audit,
    auditReader: new AuditReader(auditLog),
    associationAdmin: new AssociationAdmin(associations, audit, { clock, cores: institutions, onCoreFailure: coreSessionEndFailure }),
    associationReader: new AssociationReader(associations),
    deregistrar: new AssociationDeregistrar(associations, institutions, clock, coreSessionEndFailure),
    webhookAdmin: new WebhookAdmin(webhookStore, clock, new WebhookTargetPolicy(targetPolicy)),
    webhookDispatcher,
    retentionPruner,
    async close() {
      if (closed) return;
      closed = true;
      // Audit rows still being written after their request stopped waiting for them.
      await audit.drain();
      await webhookDispatcher.stop();
      await retentionPruner.stop();
      await webhookSender.close();
      await rateLimiter.close();
      revokedAccessTokens.stop();
      await replayGuard.close();
      await institutions.close();
      await changeFeed?.close();
      await database.close();
      options.onClose?.();
    },
  };
}

/**
 * Mutual TLS as configured: certificates from coregate's own TLS (COREGATE_TLS_CLIENT_CA_FILE)
 * and/or from a trusted proxy's header (COREGATE_TLS_CLIENT_CERT_HEADER), checked against that CA.
 */
function mutualTls(config: Config): ClientCertificateSource | undefined {
  if (config.tlsClientCaFile === undefined && config.tlsClientCertHeader === undefined) return undefined;
  // Read on first use: a CLI command never reads the CA file (the server checks it at start: startServer).
  let ca: readonly X509Certificate[] | undefined;
  const caCertificates = (): readonly X509Certificate[] | undefined => {
    if (config.tlsClientCaFile === undefined || ca) return ca;
    const bundle = readClientCa(config)?.toString('utf8') ?? '';
    ca = (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((pem) => new X509Certificate(pem));
    return ca;
  };
  return {
    ...(config.tlsClientCertHeader !== undefined ? { header: config.tlsClientCertHeader } : {}),
    isTrustedProxy: trustedProxies(config.trustProxy),
    ca: caCertificates,
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
  if (opened.tightened) logger.warn({ dataDir: config.dataDir, entries: opened.tightened }, 'the data dir was open to other users: its modes are now 0700 (directories) and 0600 (files)');
  try {
    return await createServices(config, { logger, database: opened.database, onClose: opened.release, listenForChanges: role === 'server' });
  } catch (error) {
    await opened.database.close().catch(() => {});
    opened.release();
    throw error;
  }
}
