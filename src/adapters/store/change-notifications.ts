/**
 * The notifications the database itself sends when a client, an institution or a
 * signing key changes: triggers (migration 8) call `pg_notify` on {@link CHANGE_CHANNEL}
 * in the writing transaction, so every write path — the server, a CLI process on
 * PostgreSQL, an operator's hand-written SQL — announces its change, and only once
 * it is committed. Both change feeds (PostgreSQL and PGlite) read them here.
 */
import type { Change, ChangeListener, RowChange } from '../../ports/change-feed.js';

export const CHANGE_CHANNEL = 'coregate_changes';

const ROW_KINDS: ReadonlySet<string> = new Set<RowChange['kind']>(['client', 'institution', 'signing_key']);

/** `{"kind":"client","id":"cg_…"}` as the trigger writes it; `undefined` for anything else. */
export function parseChange(payload: string | undefined): RowChange | undefined {
  try {
    const parsed = JSON.parse(payload ?? '') as { kind?: unknown; id?: unknown };
    return typeof parsed.kind === 'string' && ROW_KINDS.has(parsed.kind) && typeof parsed.id === 'string'
      ? { kind: parsed.kind as RowChange['kind'], id: parsed.id }
      : undefined;
  } catch {
    return undefined;
  }
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
