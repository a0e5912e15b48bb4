/**
 * `GET /core/accounts?customerId=` (docs/behaviour.md#accounts,
 * docs/behaviour.md#rejected-sessions): the customer's accounts through the stored
 * association, renewing the core session when it is due, and once more if the core rejects
 * an unexpired one. Every record must be the session's customer's: a core answering
 * another customer's accounts is a core protocol error (502), whatever the connector.
 */
import type { AccountRecord } from '../domain/account.js';
import type { AssociationKey } from '../domain/association.js';
import type { AssociationStore } from '../ports/association-store.js';
import { CoreProtocolError, type CoreCallContext, type InstitutionCores } from '../ports/core-connector.js';
import type { CoreSessionKeeper } from './core-session-keeper.js';
import { withCoreSession, type CoreSessionDeps } from './with-core-session.js';

export class AccountReader {
  private readonly sessions: CoreSessionDeps;

  constructor(store: AssociationStore, cores: InstitutionCores, keeper: CoreSessionKeeper) {
    this.sessions = { store, cores, keeper };
  }

  /** `key` names the caller's institution and platform (from its token) and the customerId asked for. */
  list(key: AssociationKey, callContext: CoreCallContext): Promise<AccountRecord[]> {
    return withCoreSession(this.sessions, key, callContext, async (core, association, context) =>
      onlyCustomers(association.customerKey, await core.listAccounts(association.delegateReferenceId, context)),
    );
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
