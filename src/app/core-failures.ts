/**
 * How failures of the core reach the platform: each core failure mapped to its error
 * code (docs/errors.md). Unreachable, timing out, failing or answering garbage →
 * `core_failed` (502), the cause logged only; the core circuit breaker open →
 * `unavailable` (503) with `Retry-After`, at once; the core answering 429 (it did
 * nothing) → `unavailable` (503) with `Retry-After` too; a disabled institution →
 * `institution_disabled` (503); a core without the call → `not_supported_by_core` (501);
 * an account that is not the customer's → the 404 of an unknown customer.
 */
import {
  coreFailed,
  customerNotRegistered,
  institutionDisabled,
  notSupportedByCore,
  unavailable,
  type ApiError,
} from '../domain/errors.js';
import {
  AccountNotFound,
  CoreBusy,
  CoreCircuitOpen,
  CoreError,
  InstitutionUnavailable,
  TransactionsNotSupported,
} from '../ports/core-connector.js';

export function fromCoreFailure(error: unknown): ApiError {
  if (error instanceof InstitutionUnavailable) return institutionDisabled(error.institution);
  if (error instanceof CoreCircuitOpen) {
    return unavailable(
      'the core banking system is unavailable; try again later',
      error.message,
      error.retryAfterSeconds,
    );
  }
  // Another customer's account is answered as an unknown customer: no existence leak (docs/behaviour.md#transactions).
  if (error instanceof AccountNotFound) return customerNotRegistered();
  if (error instanceof TransactionsNotSupported) return notSupportedByCore(error.message);
  if (error instanceof CoreBusy) {
    return unavailable('the core banking system is busy; try again later', error.message, error.retryAfterSeconds);
  }
  return coreFailed(
    error instanceof CoreError
      ? error.message
      : `unexpected core failure: ${(error as Error)?.message ?? String(error)}`,
  );
}
