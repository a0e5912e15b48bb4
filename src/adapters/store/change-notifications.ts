/**
 * The notifications the database itself sends when a client, an institution or a
 * signing key changes, or an association is removed: triggers (migrations 8 and 9)
 * call `pg_notify` on {@link CHANGE_CHANNEL} in the writing transaction, so every
 * write path — the server, a CLI process on PostgreSQL, an operator's hand-written
 * SQL — announces its change, and only once it is committed. Both change feeds
 * (PostgreSQL and PGlite) read them here.
 */
import type {
  AccessTokenRevoked,
  AssociationRemoved,
  Change,
  ChangeListener,
  RowChange,
} from '../../ports/change-feed.js';

export const CHANGE_CHANNEL = 'coregate_changes';

const ROW_KINDS: ReadonlySet<string> = new Set<RowChange['kind']>(['client', 'institution', 'signing_key']);

/**
 * `{"kind":"client","id":"cg_…"}`, `{"kind":"association","institution":…,"platform":…,"customerId":…}`
 * or `{"kind":"access_token_revoked","jti":…,"exp":…}` as the triggers write them (migrations 8–10);
 * `undefined` for anything else.
 */
export function parseChange(
  payload: string | undefined,
): RowChange | AssociationRemoved | AccessTokenRevoked | undefined {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(payload ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { kind, id, institution, platform, customerId, jti, exp } = parsed;
  if (typeof kind !== 'string') return undefined;
  if (kind === 'access_token_revoked') {
    return typeof jti === 'string' && typeof exp === 'number' && Number.isFinite(exp) ? { kind, jti, exp } : undefined;
  }
  if (kind === 'association') {
    return typeof institution === 'string' && typeof platform === 'string' && typeof customerId === 'string'
      ? { kind, key: { institution, platform, customerId } }
      : undefined;
  }
  return ROW_KINDS.has(kind) && typeof id === 'string' ? { kind: kind as RowChange['kind'], id } : undefined;
}

/** The subscribers of a feed; one listener failing does not keep the change from the others. */
export class ChangeListeners {
  private readonly listeners = new Set<ChangeListener>();

  add(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(change: Change): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A cache that cannot drop an entry still expires it; the others must hear the change.
      }
    }
  }
}
