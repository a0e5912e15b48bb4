/**
 * The configured core transport, and each institution's core guarded once
 * (`guarded-core-connector.ts`: counted and timed, retries, circuit breaker). The transport
 * follows the institution's core kind: the HTTP connector for the reference core protocol,
 * the Fineract connector for Apache Fineract (docs/cores/fineract.md); both get the same guard.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config/config.js';
import type { Clock } from '../../ports/clock.js';
import type { CoreConnector } from '../../ports/core-connector.js';
import type { CircuitState, MetricsRecorder } from '../../ports/metrics.js';
import { GuardedCoreConnector } from './guarded-core-connector.js';
import { HttpCoreConnector } from './http-core-connector.js';
import { InProcessCoreConnector } from './in-process-core-connector.js';
import { CoreSimulator } from '../../fakes/core-simulator/core-simulator.js';
import { readFileSync } from 'node:fs';
import { DEFAULT_INSTITUTION, type InstitutionRecord } from '../../domain/institution.js';
import type { InstitutionCoreFactory } from '../../ports/institution-core-factory.js';
import type { SecretSealer } from '../../ports/secret-sealer.js';
import { FineractCoreConnector } from './fineract/fineract-core-connector.js';

/** What building a core transport takes beyond the institution's own settings. */
export interface CoreTransportDeps {
  readonly config: Config;
  readonly clock: Clock;
  /** Seals the delegate reference IDs a Fineract connector makes (the configured encryption keys). */
  readonly sealer: SecretSealer;
  readonly logger: Logger;
}

/**
 * The configured core of `default`: the Fineract connector for COREGATE_CORE_KIND=fineract,
 * the HTTP connector for `CORE_URL`, else the simulator in process.
 */
export function createCoreConnector(deps: CoreTransportDeps): {
  core: CoreConnector;
  simulator: CoreSimulator | undefined;
} {
  const { config, clock } = deps;
  if (config.coreKind === 'fineract') {
    // The configuration refuses Fineract without these (config.ts), so this never throws at start.
    if (config.coreUrl === undefined || config.fineractCredentials === undefined)
      throw new Error('COREGATE_CORE_KIND=fineract needs CORE_URL and the service user');
    return {
      core: new FineractCoreConnector({
        ...config.fineract,
        baseUrl: config.coreUrl,
        credentials: config.fineractCredentials,
        institution: DEFAULT_INSTITUTION,
        timeoutMs: config.coreTimeoutMs,
        clock,
        sealer: deps.sealer,
        logger: deps.logger,
      }),
      simulator: undefined,
    };
  }
  if (config.coreUrl !== undefined) {
    return {
      core: new HttpCoreConnector({
        baseUrl: config.coreUrl,
        apiKey: config.coreApiKey,
        timeoutMs: config.coreTimeoutMs,
      }),
      simulator: undefined,
    };
  }
  const simulator = new CoreSimulator({ clock, sessionTtlSeconds: config.simulatorSessionTtlSeconds });
  return { core: new InProcessCoreConnector(simulator, { timeoutMs: config.coreTimeoutMs }), simulator };
}

/**
 * What an operator reads when the breaker changes state: named after the request
 * whose core call changed it, like that request's own lines.
 */
function logBreakerStateChange(logger: Logger, cooldownSeconds: number) {
  return (state: CircuitState, cause: unknown, reqId: string): void => {
    if (state === 'open') {
      const reason = cause instanceof Error ? cause.message : undefined;
      logger.warn(
        { reqId, reason, cooldownSeconds },
        'core circuit breaker open: core calls refused with 503 until a probe succeeds',
      );
    } else {
      logger.info(
        { reqId },
        `core circuit breaker ${state === 'closed' ? 'closed: core calls go through again' : 'half-open: one probe call goes through'}`,
      );
    }
  };
}

/**
 * The core as the use cases see it: `connector` (whichever was configured or injected)
 * counted and timed, reading accounts retried within the core timeout
 * (COREGATE_CORE_RETRIES), behind the circuit breaker unless
 * COREGATE_CORE_BREAKER_FAILURES is 0; its metrics and log lines name `institution`.
 */
export function guardCoreConnector(
  connector: CoreConnector,
  config: Config,
  metrics: MetricsRecorder,
  logger: Logger,
  institution: string = DEFAULT_INSTITUTION,
): GuardedCoreConnector {
  const logStateChange = logBreakerStateChange(logger, config.coreBreakerCooldownSeconds);
  return new GuardedCoreConnector(connector, {
    metrics,
    institution,
    retry: { retries: config.coreRetries, budgetMs: config.coreTimeoutMs },
    ...(config.coreBreakerFailures === 0
      ? {}
      : {
          breaker: {
            minimumCalls: config.coreBreakerFailures,
            cooldownSeconds: config.coreBreakerCooldownSeconds,
            onStateChange: (state, cause, reqId) => {
              metrics.circuitState(state, institution);
              logStateChange(state, cause, reqId);
            },
            onRejected: (operation) => metrics.circuitRejected(operation, institution),
          },
        }),
  });
}

/** Reads one PEM file of an institution's mutual TLS; the error names the file, never its content. */
function readPemFile(institution: string, what: string, path: string | undefined): Buffer | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(
      `institution ${institution}: the core ${what} file cannot be read: ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      { cause: error },
    );
  }
}

/**
 * An institution's core transport, unguarded, from its record (TLS files read now): the
 * Fineract connector or the HTTP connector, with the institution's own pool and timeout.
 * `default` is the configured core, built afresh.
 */
export function institutionTransport(institution: InstitutionRecord, deps: CoreTransportDeps): CoreConnector {
  if (institution.id === DEFAULT_INSTITUTION) return createCoreConnector(deps).core;
  if (institution.coreUrl === undefined) throw new Error(`institution ${institution.id} has no core URL`);
  const ca = readPemFile(institution.id, 'CA', institution.coreCaFile);
  const cert = readPemFile(institution.id, 'client certificate', institution.coreCertFile);
  const key = readPemFile(institution.id, 'client key', institution.coreKeyFile);
  const tls = { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  const timeoutMs = institution.coreTimeoutMs ?? deps.config.coreTimeoutMs;
  if (institution.coreKind === 'fineract') {
    if (institution.fineract === undefined || institution.coreCredentials === undefined)
      throw new Error(`institution ${institution.id} has no Fineract tenant or service user`);
    return new FineractCoreConnector({
      ...institution.fineract,
      baseUrl: institution.coreUrl,
      credentials: institution.coreCredentials,
      institution: institution.id,
      timeoutMs,
      tls,
      clock: deps.clock,
      sealer: deps.sealer,
      logger: deps.logger.child({ institution: institution.id }),
    });
  }
  return new HttpCoreConnector({
    baseUrl: institution.coreUrl,
    ...(institution.coreApiKey === undefined ? {} : { apiKey: institution.coreApiKey }),
    timeoutMs,
    tls,
  });
}

export interface InstitutionCoreFactoryOptions extends CoreTransportDeps {
  readonly metrics: MetricsRecorder;
  /** The guarded core of `default`, built once from the configuration (or injected), closed with the registry. */
  readonly defaultCore: CoreConnector;
}

/**
 * Builds each institution's core: `default` is the configured one; every other gets
 * its own transport ({@link institutionTransport}: pool, TLS files, timeout), metric
 * label and circuit breaker, with log lines that name it.
 */
export function institutionCoreFactory(options: InstitutionCoreFactoryOptions): InstitutionCoreFactory {
  const { config, metrics, logger, defaultCore } = options;
  return {
    create(institution: InstitutionRecord): CoreConnector {
      // Its core settings are not in the database, so a reload never retires it (never closes it).
      if (institution.id === DEFAULT_INSTITUTION) return defaultCore;
      const connector = institutionTransport(institution, options);
      // Its retries stay within its own core timeout.
      return guardCoreConnector(
        connector,
        { ...config, coreTimeoutMs: institution.coreTimeoutMs ?? config.coreTimeoutMs },
        metrics,
        logger.child({ institution: institution.id }),
        institution.id,
      );
    },
  };
}
