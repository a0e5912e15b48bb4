/** The institutions and their guarded cores. */
import { InstitutionAdmin } from '../../app/institution-admin.js';
import { InstitutionRegistry } from '../../app/institution-registry.js';
import { CoreChecker } from '../../app/check-core.js';
import { checkAccountRecord } from '../../adapters/core/account-record.js';
import {
  createCoreConnector,
  guardCoreConnector,
  institutionCoreFactory,
  institutionTransport,
} from '../../adapters/core/create-core-connector.js';
import type { CoreBreaker } from '../../adapters/core/guarded-core-connector.js';
import type { CoreSimulator } from '../../fakes/core-simulator/core-simulator.js';
import type { AesGcmSealer } from '../../adapters/crypto/aes-gcm-sealer.js';
import type { PrometheusMetrics } from '../../adapters/metrics/prometheus.js';
import { SqlInstitutionStore } from '../../adapters/store/sql-institution-store.js';
import { defaultInstitutionCore } from '../../config/default-institution.js';
import type { CoreConnector } from '../../ports/core-connector.js';
import type { Basics } from './basics.js';

export interface Cores {
  /** The built-in simulator, when `CORE_URL` is unset and no connector was injected. */
  readonly simulator: CoreSimulator | undefined;
  /** The breaker of the `default` institution's core; `undefined` when COREGATE_CORE_BREAKER_FAILURES is 0. */
  readonly coreBreaker: CoreBreaker | undefined;
  readonly institutionStore: SqlInstitutionStore;
  readonly institutions: InstitutionRegistry;
  readonly institutionAdmin: InstitutionAdmin;
  /** `core check --institution ID`, on a transport of its own (neither the serving pool nor its breaker). */
  readonly coreChecker: CoreChecker;
}

/**
 * `default`'s core is the injected `core` (tests) or the configured one; every
 * other institution's is built from its record when first asked for.
 */
export function buildCores(
  { config, logger, clock, database }: Basics,
  {
    sealer,
    metrics,
    core,
  }: { readonly sealer: AesGcmSealer; readonly metrics: PrometheusMetrics; readonly core: CoreConnector | undefined },
): Cores {
  const transportDeps = { config, clock, sealer, logger };
  const { core: connector, simulator } = core ? { core, simulator: undefined } : createCoreConnector(transportDeps);
  const defaultCore = guardCoreConnector(connector, config, metrics, logger);
  const institutionStore = new SqlInstitutionStore(database, sealer);
  const institutions = new InstitutionRegistry(
    institutionStore,
    institutionCoreFactory({ ...transportDeps, metrics, defaultCore }),
    clock,
    {
      cacheSeconds: config.institutionCacheSeconds,
      onError: (error, institution) =>
        logger.error({ err: error, institution }, 'institutions: reload or core set-up failed'),
    },
  );
  return {
    simulator,
    coreBreaker: defaultCore.breaker,
    institutionStore,
    institutions,
    institutionAdmin: new InstitutionAdmin(institutionStore, clock, {
      core: defaultInstitutionCore(config),
      onChange: () => institutions.forgetAll(),
    }),
    coreChecker: new CoreChecker(
      institutionStore,
      { create: (record) => institutionTransport(record, transportDeps) },
      clock,
      checkAccountRecord,
    ),
  };
}
