/**
 * How the database failing reaches a caller (docs/errors.md): `unavailable` (503) with
 * `Retry-After`, the cause logged only.
 */
import { unavailable, type ApiError } from '../domain/errors.js';
import type { DatabaseUnavailable } from '../ports/database-unavailable.js';

export function fromDatabaseFailure(error: DatabaseUnavailable): ApiError {
  return unavailable('the service is temporarily unavailable', error.detail, error.retryAfterSeconds);
}
