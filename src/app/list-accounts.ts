/**
 * `GET /core/accounts?customerId=` (docs/behaviour.md#accounts,
 * docs/behaviour.md#rejected-sessions): the customer's accounts through the stored
 * association, renewing the core session when it is due, and once more if the core rejects
 * an unexpired one.
 */
import type { AccountRecord } from '../domain/account.js';
import type { AssociationKey } from '../domain/association.js';
import { customerNotRegistered } from '../domain/errors.js';
import type { AssociationStore } from '../ports/association-store.js';
import { SessionRejected, type CoreCallContext, type InstitutionCores } from '../ports/core-connector.js';
import { fromCoreFailure } from './core-failures.js';
import type { CoreSessionKeeper } from './core-session-keeper.js';
import { atInstitution } from './core-call-context.js';

export class AccountReader {
  constructor(
    private readonly store: AssociationStore,
    private readonly cores: InstitutionCores,
    private readonly keeper: CoreSessionKeeper,
  ) {}

  /** `key` names the caller's institution and platform (from its token) and the customerId asked for. */
  async list(key: AssociationKey, callContext: CoreCallContext): Promise<AccountRecord[]> {
    const context = atInstitution(callContext, key.institution);
    const stored = await this.store.find(key, context.deadline);
    // Another platform's (or institution's) customer gets the very same answer as an unknown one.
    if (!stored) throw customerNotRegistered();
    let association = await this.keeper.fresh(stored, context);
    for (let attempt = 0; ; attempt += 1) {
      try {
        const core = await this.cores.coreFor(key.institution, context.deadline);
        return await core.listAccounts(association.delegateReferenceId, context);
      } catch (error) {
        if (error instanceof SessionRejected && attempt === 0) {
          association = await this.keeper.renew(association, context);
          continue;
        }
        throw fromCoreFailure(error);
      }
    }
  }
}
