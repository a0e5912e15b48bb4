/**
 * `GET /core/transactions/sync` (docs/behaviour.md#transaction-sync): what changed in an
 * account's last {@link DEFAULT_WINDOW_DAYS} days since the platform's last sync, as Plaid's
 * `/transactions/sync` answers it. Each call reads the whole window from the core, compares
 * it with what the platform was told (ids and keyed digests, kept by the sync store) and
 * answers the first `count` changes; the kept state moves on by exactly those, so the next
 * page answers the rest. A cursor names the generation of the kept state it follows: an
 * older one (a page answered twice, a sync started again elsewhere) is `invalid_cursor`.
 */
import type { AssociationKey } from '../domain/association.js';
import { customerNotRegistered, invalidCursor } from '../domain/errors.js';
import type { TransactionRecord } from '../domain/transaction.js';
import {
  addDays,
  DEFAULT_PAGE_SIZE,
  DEFAULT_WINDOW_DAYS,
  MAX_PAGE_SIZE,
  utcDay,
  type TransactionFilters,
} from '../domain/transaction-query.js';
import { canonicalRecord, syncPage, type DigestedTransaction } from '../domain/transaction-sync.js';
import type { Clock } from '../ports/clock.js';
import { CoreProtocolError, type CoreCallContext, type CoreConnector } from '../ports/core-connector.js';
import type { CredentialHasher } from '../ports/credential-hasher.js';
import type { KeptSyncHead, SyncStateKey, TransactionSyncStore } from '../ports/transaction-sync-store.js';
import { checkPage, transactionPage } from './list-transactions.js';
import type { TransactionCursors } from './transaction-cursors.js';
import { withCoreSession, type CoreSessionDeps } from './with-core-session.js';

/**
 * The most transactions one account's sync window may hold: the bound on what is kept per
 * account (docs/behaviour.md#transaction-sync). An account with more fails its sync (502),
 * its log line naming this limit.
 */
const MAX_SYNC_TRANSACTIONS = 10_000;

export interface SyncRequest {
  readonly accountId: string;
  readonly cursor?: string | undefined;
  readonly count?: number | undefined;
}

export interface SyncAnswer {
  readonly added: TransactionRecord[];
  readonly modified: TransactionRecord[];
  readonly removed: { id: string }[];
  readonly nextCursor: string;
  readonly hasMore: boolean;
}

/** Kept apart from credential digests: the input of a transaction's digest always starts so. */
const DIGEST_DOMAIN = 'coregate transaction\n';

export class TransactionSyncer {
  constructor(
    private readonly sessions: CoreSessionDeps,
    private readonly store: TransactionSyncStore,
    private readonly cursors: TransactionCursors,
    /** The keyed digest of records; the same keys as every other digest coregate keeps. */
    private readonly digests: Pick<CredentialHasher, 'digest' | 'matches'>,
    private readonly clock: Clock,
  ) {}

  async sync(key: AssociationKey, request: SyncRequest, callContext: CoreCallContext): Promise<SyncAnswer> {
    const stateKey: SyncStateKey = { ...key, accountId: request.accountId };
    const from = request.cursor === undefined ? 'restart' : this.cursors.openSync(stateKey, request.cursor);
    let head: KeptSyncHead | undefined;
    if (from !== 'restart') {
      head = await this.store.head(stateKey, callContext.deadline);
      if (head?.generation !== from) {
        // Deregistration deletes the kept state: a deregistered customer's cursor names nothing
        // kept, and the answer is theirs (404), not the cursor's.
        if (!head && !(await this.sessions.store.find(key, callContext.deadline))) throw customerNotRegistered();
        throw invalidCursor(head ? 'the cursor is older than the kept sync state' : 'no sync state is kept');
      }
    }
    const today = utcDay(this.clock.now());
    const window: TransactionFilters = {
      fromDate: addDays(today, -DEFAULT_WINDOW_DAYS),
      toDate: today,
      status: 'both',
    };
    const records = await withCoreSession(this.sessions, key, callContext, (core, association, context) =>
      readWindow(core, association.delegateReferenceId, request.accountId, window, context),
    );
    const canonical = records.map(canonicalRecord);
    // One keyed digest of the whole window: the same as when the platform was last fully told,
    // nothing changed, and neither the kept rows nor a digest per record are needed.
    const windowDigest = this.digests.digest(`${DIGEST_DOMAIN}window\n${canonical.join('\n')}`);
    if (from !== 'restart' && head?.windowDigest === windowDigest)
      return {
        added: [],
        modified: [],
        removed: [],
        nextCursor: this.cursors.sealSync(stateKey, from),
        hasMore: false,
      };
    const kept = from === 'restart' ? new Map() : await this.store.kept(stateKey, callContext.deadline);
    const current: DigestedTransaction[] = records.map((record, index) => ({
      record,
      digest: this.digests.digest(DIGEST_DOMAIN + canonical[index]!),
    }));
    const page = syncPage(
      kept,
      current,
      request.count ?? DEFAULT_PAGE_SIZE,
      today,
      (entry, keptDigest) =>
        keptDigest === entry.digest || this.digests.matches(DIGEST_DOMAIN + canonicalRecord(entry.record), keptDigest),
    );
    const generation = await this.store.apply(
      stateKey,
      from,
      page,
      page.hasMore ? null : windowDigest,
      this.clock.now(),
      callContext.deadline,
    );
    if (generation === 'unregistered') throw customerNotRegistered();
    if (generation === 'moved-on') throw invalidCursor('another sync moved the kept state on meanwhile');
    return {
      added: page.added,
      modified: page.modified,
      removed: page.removed.map((id) => ({ id })),
      nextCursor: this.cursors.sealSync(stateKey, generation),
      hasMore: page.hasMore,
    };
  }
}

/** Every transaction of the window, page by page at the largest page size, held to the account. */
async function readWindow(
  core: CoreConnector,
  delegateReferenceId: string,
  accountId: string,
  window: TransactionFilters,
  context: CoreCallContext,
): Promise<TransactionRecord[]> {
  const records: TransactionRecord[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await transactionPage(
      core,
      delegateReferenceId,
      { accountId, ...window, limit: MAX_PAGE_SIZE, cursor },
      context,
    );
    checkPage(page.transactions, accountId, window.status, MAX_PAGE_SIZE);
    for (const record of page.transactions) {
      if (seen.has(record.id)) throw new CoreProtocolError('the core listed one transaction twice in a window', true);
      seen.add(record.id);
      records.push(record);
    }
    if (records.length > MAX_SYNC_TRANSACTIONS)
      throw new CoreProtocolError(
        `the account holds more than ${MAX_SYNC_TRANSACTIONS} transactions in the sync window, the most a sync keeps`,
        true,
      );
    if (page.nextCursor === null) return records;
    cursor = page.nextCursor;
  }
}
