/**
 * The single use of a proof's `jti` (client assertions, DPoP proofs), or a 503 when it
 * cannot be checked now: a bank's gateway refuses a proof it cannot prove fresh rather than
 * accept a possible replay (docs/operations.md, "Threat model"). At the token endpoint that
 * is `temporarily_unavailable`, at the gateway `Unavailable`, both with `Retry-After`.
 */
import { unavailable } from '../domain/errors.js';
import type { DatabaseDeadline } from '../ports/database-deadline.js';
import { ReplayCheckUnavailable, type ReplayGuard } from '../ports/replay-guard.js';

export async function firstUseOrUnavailable(
  replays: ReplayGuard,
  key: string,
  until: Date,
  now: Date,
  deadline?: DatabaseDeadline,
): Promise<boolean> {
  try {
    return await replays.firstUse(key, until, now, deadline);
  } catch (error) {
    if (error instanceof ReplayCheckUnavailable)
      throw unavailable(
        'the single-use check of proofs cannot be made now; try again later',
        error.message,
        error.retryAfterSeconds,
      );
    throw error;
  }
}
