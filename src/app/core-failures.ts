/** How failures of the core reach the platform (CONTRACT §3 and §4). */
import { BadGateway, NotAuthenticated, Unavailable } from '../domain/errors.js';
import { CoreCircuitOpen, CoreError, InstitutionUnavailable } from '../ports/core-connector.js';

/** The caller's institution is disabled: 503 on every `/core/*` call of its clients (CONTRACT §8). */
export function institutionUnavailable(institution: string): Unavailable {
  return new Unavailable('the institution is not available', {}, { detail: `institution ${institution} is disabled` });
}

/** The stored customer key no longer works at the core: only a new registration helps. */
export function reregistrationRequired(): NotAuthenticated {
  return new NotAuthenticated('the customer must be registered again', { reason: 'reregistration_required' });
}

/**
 * Core unreachable, timing out, failing or answering garbage → 502, cause logged only;
 * once the core circuit breaker is open → 503 with `Retry-After`, at once.
 */
export function badGateway(error: unknown): BadGateway | Unavailable {
  if (error instanceof InstitutionUnavailable) return institutionUnavailable(error.institution);
  if (error instanceof CoreCircuitOpen) {
    return new Unavailable('the core banking system is unavailable; try again later', {}, {
      detail: error.message,
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    });
  }
  const detail = error instanceof CoreError ? error.message : `unexpected core failure: ${(error as Error)?.message ?? String(error)}`;
  return new BadGateway('the core banking system did not answer properly', {}, { detail });
}
