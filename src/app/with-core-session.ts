/**
 * A core call for a platform's customer through its stored association
 * (docs/behaviour.md#rejected-sessions), shared by every read of the customer's data:
 * the association is looked up (another platform's customer is answered as an unknown
 * one), its core session renewed when it is due, and renewed once more and the call
 * repeated if the core rejects an unexpired one. Failures of the core become the
 * platform's answer through the one mapping of `core-failures.ts`.
 */
import type { Association, AssociationKey } from '../domain/association.js';
import { ApiError, customerNotRegistered } from '../domain/errors.js';
import type { AssociationStore } from '../ports/association-store.js';
import {
  SessionRejected,
  type CoreCallContext,
  type CoreConnector,
  type InstitutionCores,
} from '../ports/core-connector.js';
import { fromCoreFailure } from './core-failures.js';
import type { CoreSessionKeeper } from './core-session-keeper.js';
import { atInstitution } from './core-call-context.js';

export interface CoreSessionDeps {
  readonly store: AssociationStore;
  readonly cores: InstitutionCores;
  readonly keeper: CoreSessionKeeper;
}

/**
 * Runs `call` with the institution's core and the customer's fresh association. `call` may
 * be run twice (after a rejected session), so it must be safe to repeat. An {@link ApiError}
 * it throws reaches the platform as it is.
 */
export async function withCoreSession<T>(
  deps: CoreSessionDeps,
  key: AssociationKey,
  callContext: CoreCallContext,
  call: (core: CoreConnector, association: Association, context: CoreCallContext) => Promise<T>,
): Promise<T> {
  const context = atInstitution(callContext, key.institution);
  const stored = await deps.store.find(key, context.deadline);
  // Another platform's (or institution's) customer gets the very same answer as an unknown one.
  if (!stored) throw customerNotRegistered();
  let association = await deps.keeper.fresh(stored, context);
  for (let attempt = 0; ; attempt += 1) {
    try {
      const core = await deps.cores.coreFor(key.institution, context.deadline);
      return await call(core, association, context);
    } catch (error) {
      if (error instanceof SessionRejected && attempt === 0) {
        association = await deps.keeper.renew(association, context);
        continue;
      }
      if (error instanceof ApiError) throw error;
      throw fromCoreFailure(error);
    }
  }
}
