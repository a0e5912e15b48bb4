/**
 * How failures of the core reach the platform: each core failure mapped to its error
 * code (docs/errors.md). Unreachable, timing out, failing or answering garbage →
 * `core_failed` (502), the cause logged only; the core circuit breaker open →
 * `unavailable` (503) with `Retry-After`, at once; the core answering 429 (it did
 * nothing) → `unavailable` (503) with `Retry-After` too; a disabled institution →
 * `institution_disabled` (503).
 */
import { coreFailed, institutionDisabled, unavailable, type ApiError } from '../domain/errors.js';
import { CoreBusy, CoreCircuitOpen, CoreError, InstitutionUnavailable } from '../ports/core-connector.js';

export function fromCoreFailure(error: unknown): ApiError {
  if (error instanceof InstitutionUnavailable) return institutionDisabled(error.institution);
  if (error instanceof CoreCircuitOpen) {
    return unavailable(
      'the core banking system is unavailable; try again later',
      error.message,
      error.retryAfterSeconds,
    );
  }
  if (error instanceof CoreBusy) {
    return unavailable('the core banking system is busy; try again later', error.message, error.retryAfterSeconds);
  }
  return coreFailed(
    error instanceof CoreError
      ? error.message
      : `unexpected core failure: ${(error as Error)?.message ?? String(error)}`,
  );
}
