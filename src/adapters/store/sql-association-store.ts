import type { Association, AssociationKey } from '../../domain/association.js';
import { DEFAULT_INSTITUTION } from '../../domain/institution.js';
import type { LifecycleEvent } from '../../domain/lifecycle-event.js';
import type { AuditEvent } from '../../ports/audit-log.js';
import type {
  AssociationStore,
  AssociationSummary,
  ClaimResult,
  EventsToRecord,
  NewSession,
  RegisterResult,
} from '../../ports/association-store.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import type { SecretSealer } from '../../ports/secret-sealer.js';
import type { Database, Queryable } from './database.js';
import { auditEventCte, insertAuditEvents } from './sql-audit-log.js';
import { lifecycleEventCtes, recordLifecycleEvents } from './sql-webhook-outbox.js';

interface AssociationRow {
  institution: string;
  platform: string;
  customer_id: string;
  customer_key: string;
  delegate_sealed: string;
  expires_at: Date;
  needs_reregistration: boolean;
  version: number;
  renewal_owner: string | null;
  renewal_lease_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'institution, platform, customer_id, customer_key, delegate_sealed, expires_at, needs_reregistration, version, renewal_owner, renewal_lease_until, created_at, updated_at';

/**
 * Binds a sealed delegate reference ID to its row: it cannot be copied to another
 * customer. `default` keeps the context of the rows sealed before institutions existed.
 */
function sealContext(key: AssociationKey): string {
  const parts =
    key.institution === DEFAULT_INSTITUTION
      ? [key.platform, key.customerId]
      : [key.institution, key.platform, key.customerId];
  return `delegate:${JSON.stringify(parts)}`;
}

/** The key id is the second part of a sealed value (`v1.<key id>.…`), kept in its own column for rotation. */
function keyIdOf(sealed: string): string {
  return sealed.split('.')[1] ?? '';
}

export interface SqlAssociationStoreOptions {
  /** Called after a commit that queued webhook deliveries, so the dispatcher need not wait for its next poll. */
  readonly onEventsQueued?: () => void;
}

export class SqlAssociationStore implements AssociationStore {
  constructor(
    private readonly db: Database,
    private readonly sealer: SecretSealer,
    private readonly options: SqlAssociationStoreOptions = {},
  ) {}

  /**
   * Runs `work` alone when there are no events to record, else in a transaction
   * whose events are written by `record` (the transactional outbox); in a transaction
   * also when `transactional` says so (an audit row to write with the change).
   */
  private async withEvents<T>(
    events: readonly LifecycleEvent[] | undefined,
    deadline: DatabaseDeadline | undefined,
    work: (tx: Queryable, record: (now: Date) => Promise<void>) => Promise<T>,
    transactional = false,
  ): Promise<T> {
    if ((!events || events.length === 0) && !transactional) {
      return work({ query: (text, params) => this.db.query(text, params, deadline) }, async () => {});
    }
    let queued = 0;
    const result = await this.db.transaction(
      (tx) =>
        work(tx, async (now) => {
          if (events) queued += await recordLifecycleEvents(tx, events, now);
        }),
      deadline,
    );
    if (queued > 0) this.options.onEventsQueued?.();
    return result;
  }

  /**
   * `written`: the delegate reference ID this statement just sealed into the row, so it is
   * not opened again (an AES-GCM decryption, a visible share of a registration's CPU).
   */
  private toAssociation(row: AssociationRow, written?: NewSession): Association {
    const key = { institution: row.institution, platform: row.platform, customerId: row.customer_id };
    return {
      ...key,
      customerKey: row.customer_key,
      ...(written ? { delegateReferenceId: written.delegateReferenceId } : this.openDelegate(row.delegate_sealed, key)),
      expiresAt: new Date(row.expires_at),
      needsReregistration: row.needs_reregistration,
      version: Number(row.version),
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    };
  }

  /**
   * The delegate reference ID, or the mark that it cannot be opened (a key no longer held, a
   * damaged value): the keeper renews such a session instead of the request failing.
   */
  private openDelegate(
    sealed: string,
    key: AssociationKey,
  ): Pick<Association, 'delegateReferenceId' | 'delegateUnreadable'> {
    try {
      return { delegateReferenceId: this.sealer.open(sealed, sealContext(key)) };
    } catch {
      return { delegateReferenceId: '', delegateUnreadable: true };
    }
  }

  async find(key: AssociationKey, deadline?: DatabaseDeadline): Promise<Association | undefined> {
    const rows = await this.db.query<AssociationRow>(
      `select ${COLUMNS} from associations where institution = $1 and platform = $2 and customer_id = $3`,
      [key.institution, key.platform, key.customerId],
      deadline,
    );
    return rows[0] && this.toAssociation(rows[0]);
  }

  async register(
    key: AssociationKey,
    session: NewSession,
    now: Date,
    events: readonly LifecycleEvent[] = [],
    audit?: AuditEvent,
    deadline?: DatabaseDeadline,
  ): Promise<RegisterResult> {
    const sealed = this.sealer.seal(session.delegateReferenceId, sealContext(key));
    const params: unknown[] = [
      key.institution,
      key.platform,
      key.customerId,
      session.customerKey,
      sealed,
      keyIdOf(sealed),
      session.expiresAt,
      now,
    ];
    // One statement (the hot path of registration): insert, or refresh the row only if it
    // names the same core customer — no row back means another customer holds this
    // customerId. `xmax = 0` holds for a row this statement inserted (not one it updated):
    // the events of a registration are written, by the same statement, only when it
    // created the association (the transactional outbox, without a transaction's round trips).
    const outbox = lifecycleEventCtes(events, now, params, 'registered');
    // The audit row too, for a created or a refreshed association: a process killed after the
    // commit leaves the change, its event and its audit row, or none of them.
    if (audit) outbox.ctes.push(auditEventCte(audit, params, 'registered'));
    const rows = await this.db.query<{ version: number; created_at: Date; queued: string | number }>(
      `with registered as (
         insert into associations (institution, platform, customer_id, customer_key, delegate_sealed, delegate_key_id, expires_at, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $8)
         on conflict (institution, platform, customer_id) do update set
           delegate_sealed = excluded.delegate_sealed,
           delegate_key_id = excluded.delegate_key_id,
           expires_at = excluded.expires_at,
           needs_reregistration = false,
           version = associations.version + 1,
           renewal_owner = null,
           renewal_lease_until = null,
           updated_at = excluded.updated_at
         where associations.customer_key = excluded.customer_key
         returning version, created_at, (xmax = 0) as inserted
       )${outbox.ctes.map((cte) => `, ${cte}`).join('')}
       select registered.version, registered.created_at, ${outbox.queued} as queued from registered`,
      params,
      deadline,
    );
    const row = rows[0];
    if (!row) return { outcome: 'conflict' };
    if (Number(row.queued) > 0) this.options.onEventsQueued?.();
    // The row holds what this statement wrote: only what it chose (its version, and its creation time
    // for a refreshed row) is read back; every column read back cost a registration parsing time.
    const association: Association = {
      ...key,
      customerKey: session.customerKey,
      delegateReferenceId: session.delegateReferenceId,
      expiresAt: session.expiresAt,
      needsReregistration: false,
      version: Number(row.version),
      createdAt: new Date(row.created_at),
      updatedAt: now,
    };
    return { outcome: 'registered', association };
  }

  async claimRenewal(
    key: AssociationKey,
    version: number,
    owner: string,
    now: Date,
    leaseUntil: Date,
    deadline?: DatabaseDeadline,
  ): Promise<ClaimResult> {
    // Never a lease on an association marked for re-registration: marking keeps the
    // version and clears the lease, so a caller that read the row before the mark
    // would otherwise claim it and ask the core again for a key it no longer knows.
    const claimed = await this.db.query<AssociationRow>(
      `update associations set renewal_owner = $5, renewal_lease_until = $7
       where institution = $1 and platform = $2 and customer_id = $3 and version = $4 and not needs_reregistration
         and (renewal_lease_until is null or renewal_lease_until <= $6)
       returning ${COLUMNS}`,
      [key.institution, key.platform, key.customerId, version, owner, now, leaseUntil],
      deadline,
    );
    if (claimed[0]) return { outcome: 'claimed', association: this.toAssociation(claimed[0]) };
    const current = await this.find(key, deadline);
    return { outcome: current && current.version === version ? 'busy' : 'stale', association: current };
  }

  async completeRenewal(
    key: AssociationKey,
    version: number,
    owner: string,
    session: NewSession,
    now: Date,
    deadline?: DatabaseDeadline,
  ): Promise<Association | undefined> {
    const sealed = this.sealer.seal(session.delegateReferenceId, sealContext(key));
    const rows = await this.db.query<AssociationRow>(
      `update associations set
         delegate_sealed = $6, delegate_key_id = $7, expires_at = $8, version = version + 1,
         renewal_owner = null, renewal_lease_until = null, updated_at = $9
       where institution = $1 and platform = $2 and customer_id = $3 and version = $4 and renewal_owner = $5
       returning ${COLUMNS}`,
      [key.institution, key.platform, key.customerId, version, owner, sealed, keyIdOf(sealed), session.expiresAt, now],
      deadline,
    );
    return rows[0] && this.toAssociation(rows[0], session);
  }

  async releaseRenewal(key: AssociationKey, owner: string, deadline?: DatabaseDeadline): Promise<void> {
    await this.db.query(
      `update associations set renewal_owner = null, renewal_lease_until = null
       where institution = $1 and platform = $2 and customer_id = $3 and renewal_owner = $4`,
      [key.institution, key.platform, key.customerId, owner],
      deadline,
    );
  }

  async markNeedsReregistration(
    key: AssociationKey,
    version: number,
    now: Date,
    events?: readonly LifecycleEvent[],
    deadline?: DatabaseDeadline,
  ): Promise<void> {
    await this.withEvents(events, deadline, async (db, record) => {
      // The row's state before the mark, locked: the events are recorded only by the call that marks it.
      const before = events?.length
        ? await db.query<{ needs_reregistration: boolean }>(
            'select needs_reregistration from associations where institution = $1 and platform = $2 and customer_id = $3 and version = $4 for update',
            [key.institution, key.platform, key.customerId, version],
          )
        : [];
      await db.query(
        `update associations set needs_reregistration = true, renewal_owner = null, renewal_lease_until = null, updated_at = $5
         where institution = $1 and platform = $2 and customer_id = $3 and version = $4`,
        [key.institution, key.platform, key.customerId, version, now],
      );
      if (before[0] && !before[0].needs_reregistration) await record(now);
    });
  }

  // Operator administration. The sealed delegate reference ID is not selected at all.
  async listByPlatform(platform: string, limit: number, institution?: string): Promise<AssociationSummary[]> {
    const rows = await this.db.query<
      Pick<
        AssociationRow,
        | 'institution'
        | 'platform'
        | 'customer_id'
        | 'customer_key'
        | 'expires_at'
        | 'needs_reregistration'
        | 'created_at'
        | 'updated_at'
      >
    >(
      `select institution, platform, customer_id, customer_key, expires_at, needs_reregistration, created_at, updated_at
       from associations where platform = $1 and ($3::text is null or institution = $3)
       order by customer_id, institution limit $2`,
      [platform, limit, institution ?? null],
    );
    return rows.map((row) => ({
      institution: row.institution,
      platform: row.platform,
      customerId: row.customer_id,
      customerKey: row.customer_key,
      expiresAt: new Date(row.expires_at),
      needsReregistration: row.needs_reregistration,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    }));
  }

  async delete(key: AssociationKey, record?: EventsToRecord, deadline?: DatabaseDeadline): Promise<boolean> {
    return this.withEvents(
      record?.events,
      deadline,
      async (db, write) => {
        const rows = await db.query(
          `delete from associations where institution = $1 and platform = $2 and customer_id = $3 returning platform`,
          [key.institution, key.platform, key.customerId],
        );
        if (rows.length > 0 && record) {
          await write(record.now);
          if (record.audit) await insertAuditEvents(db, [record.audit]);
        }
        return rows.length > 0;
      },
      record?.audit !== undefined,
    );
  }
}
