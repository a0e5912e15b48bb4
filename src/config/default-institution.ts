/**
 * The default institution's core, from the environment (CORE_URL, COREGATE_CORE_KIND,
 * COREGATE_CORE_API_KEY, COREGATE_CORE_TIMEOUT_MS, COREGATE_FINERACT_…), in the shape of an
 * institution record's core: the connectors are built from it exactly as from a stored
 * institution, and `institutions show default` shows it.
 */
import type { InstitutionCore } from '../domain/institution.js';
import type { Config } from './config.js';

export function defaultInstitutionCore(config: Config): InstitutionCore {
  const fineract = config.coreKind === 'fineract';
  return Object.freeze({
    coreUrl: config.coreUrl,
    coreApiKey: config.coreApiKey,
    // Mutual TLS to the core is an institution's setting only (`institutions add --core-cert-file`).
    coreCaFile: undefined,
    coreCertFile: undefined,
    coreKeyFile: undefined,
    coreTimeoutMs: config.coreTimeoutMs,
    coreKind: config.coreKind,
    fineract: fineract ? config.fineract : undefined,
    coreCredentials: fineract ? config.fineractCredentials : undefined,
  });
}
