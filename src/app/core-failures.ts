/**
 * How failures around a core call reach the platform (docs/errors.md), for every use case
 * that calls a core: the same function maps what `coreFor` and the core call may throw.
 *
 * - A core failure gets its error code: unreachable, timing out, failing or answering
 *   garbage → `core_failed` (502), the cause logged only; the core circuit breaker open →
 *   `unavailable` (503) with `Retry-After`, at once; the core answering 429 (it did
 *   nothing) → `unavailable` (503) with `Retry-After` too; a disabled institution →
 *   `institution_disabled` (503); a core without the call → `not_supported_by_core` (501);
 *   an account that is not the customer's → the 404 of an unknown customer.
 * - The database failing (`coreFor` may read the institutions again) is not the core's
 *   fault: `unavailable` (503) with `Retry-After`, as everywhere else.
 * - An error already in the error model passes as it is.
 * - Anything else is a programming error, not an upstream failure: it passes unchanged, so
 *   the error handler logs it as an unexpected error and answers the generic 500.
 */
import {
  ApiError,
  coreFailed,
  customerNotRegistered,
  institutionDisabled,
  notSupportedByCore,
  unavailable,
} from '../domain/errors.js';
import {
  AccountNotFound,
  CoreBusy,
  CoreCircuitOpen,
  CoreError,
  InstitutionUnavailable,
  TransactionsNotSupported,
} from '../ports/core-connector.js';
import { DatabaseUnavailable } from '../ports/database-unavailable.js';
import { fromDatabaseFailure } from './database-failures.js';

export function fromCoreFailure(error: unknown): Error {
  if (error instanceof ApiError) return error;
  if (error instanceof DatabaseUnavailable) return fromDatabaseFailure(error);
  if (!(error instanceof CoreError)) return error instanceof Error ? error : new Error(String(error));
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
  // Another customer's account is answered as an unknown customer: no existence leak (docs/behaviour.md#transactions).
  if (error instanceof AccountNotFound) return customerNotRegistered();
  if (error instanceof TransactionsNotSupported) return notSupportedByCore(error.message);
  if (error instanceof CoreBusy) {
    return unavailable('the core banking system is busy; try again later', error.message, error.retryAfterSeconds);
  }
  return coreFailed(error.message);
}
