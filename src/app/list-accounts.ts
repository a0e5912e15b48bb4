/**
 * `GET /core/accounts?customerId=` (docs/behaviour.md#accounts,
 * docs/behaviour.md#rejected-sessions): the customer's accounts through the stored
 * association, renewing the core session when it is due, and once more if the core rejects
 * an unexpired one. Every record must be the session's customer's: a core answering
 * another customer's accounts is a core protocol error (502), whatever the connector.
 */
import type { AccountRecord } from '../domain/account.js';
import type { AssociationKey } from '../domain/association.js';
import { customerNotRegistered } from '../domain/errors.js';
import type { AssociationStore } from '../ports/association-store.js';
import {
  CoreProtocolError,
  SessionRejected,
  type CoreCallContext,
  type InstitutionCores,
} from '../ports/core-connector.js';
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
        return onlyCustomers(
          association.customerKey,
          await core.listAccounts(association.delegateReferenceId, context),
        );
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

/**
 * The records, when every one carries the session's `customerKey`; otherwise the core
 * broke the association's promise (docs/behaviour.md#accounts), and no record is passed
 * on. The log line counts them; it never names a key.
 */
function onlyCustomers(customerKey: string, records: AccountRecord[]): AccountRecord[] {
  let foreign = 0;
  for (const record of records) if (record.customerKey !== customerKey) foreign += 1;
  if (foreign === 0) return records;
  throw new CoreProtocolError(
    `the core answered ${foreign} of ${records.length} account records for another customer key`,
    true,
  );
}
