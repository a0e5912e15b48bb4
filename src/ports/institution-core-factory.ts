import type { InstitutionRecord } from '../domain/institution.js';
import type { CoreConnector } from './core-connector.js';

/**
 * Builds an institution's core connector from its settings: its own connection
 * pool and timeout, counted under its `institution` metric label, behind its own
 * circuit breaker. For `default` the core comes from the configuration.
 */
export interface InstitutionCoreFactory {
  /** May throw (an unreadable certificate file, say): the institution's calls then fail as core failures. */
  create(institution: InstitutionRecord): CoreConnector;
}
