/** The `/readyz` checks (docs/behaviour.md#health). */
import { ReadinessProbe } from '../../app/readiness.js';
import { DependencyWatch, type ScheduleAfter } from '../../app/dependency-watch.js';
import type { InstitutionRegistry } from '../../app/institution-registry.js';
import type { JoseKeyring } from '../../adapters/crypto/jose-keyring.js';
import type { PrometheusMetrics } from '../../adapters/metrics/prometheus.js';
import { DEFAULT_INSTITUTION } from '../../domain/institution.js';
import type { Basics } from './basics.js';

/**
 * Only what this instance cannot serve without (the database, the signing key) makes
 * it unready; each enabled institution's core is reported (in the body and in
 * `coregate_dependency_up`) but never takes the instance out of the load balancer.
 * The institutions are listed at each probe, so a CLI command that never probes
 * builds no core connector.
 */
export function buildReadiness(
  { database }: Basics,
  {
    keyring,
    institutions,
    metrics,
  }: { readonly keyring: JoseKeyring; readonly institutions: InstitutionRegistry; readonly metrics: PrometheusMetrics },
): ReadinessProbe {
  return new ReadinessProbe(
    async () => [
      { name: 'database', check: () => database.ping() },
      // The keys are read and the custody still signs (an HSM that stopped answering makes the instance unready).
      { name: 'signing_key', check: () => keyring.checkSigning() },
      ...(await institutions.enabledCores().catch(() => [])).map(({ id, core }) => ({
        name: id === DEFAULT_INSTITUTION ? 'core' : `core:${id}`,
        required: false,
        check: async (context: { requestId: string }) => core.ping?.({ requestId: context.requestId, institution: id }),
      })),
    ],
    undefined,
    (name, ok) => metrics.readinessCheck(name, ok),
  );
}

/** A few seconds apart: an alert's `for:` spans many rounds, and a round costs a ping per dependency. */
const WATCH_INTERVAL_MS = 5000;
/** Cores pinged at once by the background watch, however many institutions there are. */
const WATCH_CONCURRENCY = 4;

/**
 * The readiness checks in the background, so `coregate_dependency_up` is current without a
 * `/readyz` poller (docs/operations.md#alerts). Started by the server only (a CLI command does
 * not watch), stopped with the services. A check no longer listed (an institution disabled or
 * removed) loses its series — but only when the database answered, since the institutions are
 * read from it and a failed read lists none.
 */
export function buildDependencyWatch(
  { logger }: Basics,
  {
    readiness,
    metrics,
    schedule,
  }: { readonly readiness: ReadinessProbe; readonly metrics: PrometheusMetrics; readonly schedule?: ScheduleAfter },
): DependencyWatch {
  return new DependencyWatch(readiness, {
    ...(schedule ? { schedule } : {}),
    intervalMs: WATCH_INTERVAL_MS,
    concurrency: WATCH_CONCURRENCY,
    onRound: (report) => {
      if (report.checks['database'] === 'ok') metrics.keepReadinessChecks(Object.keys(report.checks));
    },
    onError: (error) => logger.warn({ err: error }, 'a background readiness round failed'),
  });
}
