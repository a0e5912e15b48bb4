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
import { defaultInstitutionCore } from '../../config/default-institution.js';
import { DEFAULT_INSTITUTION, type InstitutionCore, type InstitutionRecord } from '../../domain/institution.js';
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
 * The configured core of `default` (its core settings as an institution record's, from the
 * configuration: src/config/default-institution.ts), built as every institution's is
 * ({@link institutionTransport}); without `CORE_URL`, the simulator in process.
 */
export function createCoreConnector(deps: CoreTransportDeps): {
  core: CoreConnector;
  simulator: CoreSimulator | undefined;
} {
  const { config, clock } = deps;
  const configured = defaultInstitutionCore(config);
  if (configured.coreUrl !== undefined)
    return { core: coreTransport(DEFAULT_INSTITUTION, configured, deps), simulator: undefined };
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
  return coreTransport(institution.id, institution, deps);
}

/** The one construction path of a core transport: institution `id`'s core settings `core`. */
function coreTransport(id: string, core: InstitutionCore, deps: CoreTransportDeps): CoreConnector {
  if (core.coreUrl === undefined) throw new Error(`institution ${id} has no core URL`);
  const ca = readPemFile(id, 'CA', core.coreCaFile);
  const cert = readPemFile(id, 'client certificate', core.coreCertFile);
  const key = readPemFile(id, 'client key', core.coreKeyFile);
  const tls = { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  const timeoutMs = core.coreTimeoutMs ?? deps.config.coreTimeoutMs;
  if (core.coreKind === 'fineract') {
    // The configuration refuses a Fineract default without its service user (config.ts), and the
    // institution admin a Fineract institution without its tenant or service user.
    if (core.fineract === undefined || core.coreCredentials === undefined)
      throw new Error(`institution ${id} has no Fineract tenant or service user`);
    return new FineractCoreConnector({
      ...core.fineract,
      baseUrl: core.coreUrl,
      credentials: core.coreCredentials,
      institution: id,
      timeoutMs,
      tls,
      clock: deps.clock,
      sealer: deps.sealer,
      logger: deps.logger.child({ institution: id }),
    });
  }
  return new HttpCoreConnector({
    baseUrl: core.coreUrl,
    ...(core.coreApiKey === undefined ? {} : { apiKey: core.coreApiKey }),
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
