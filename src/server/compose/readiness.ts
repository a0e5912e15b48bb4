/** The `/readyz` checks (docs/behaviour.md#health). */
import { ReadinessProbe } from '../../app/readiness.js';
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
