/**
 * The change feed of the embedded database: PGlite's own LISTEN on its single
 * connection. Only this process opens the data directory (CLI commands go through
 * its admin socket), so every write is made here and its notification arrives here,
 * once committed. Live from `start()` until `close()`.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { ChangeFeed, ChangeListener } from '../../ports/change-feed.js';
import { CHANGE_CHANNEL, ChangeListeners, parseChange } from './change-notifications.js';

export class PgliteChangeFeed implements ChangeFeed {
  private readonly listeners = new ChangeListeners();
  private unlisten: (() => Promise<void>) | undefined;
  private isLive = false;

  constructor(private readonly db: PGlite) {}

  get live(): boolean {
    return this.isLive;
  }

  async start(): Promise<void> {
    if (this.unlisten) return;
    this.unlisten = await this.db.listen(CHANGE_CHANNEL, (payload) => {
      const change = parseChange(payload);
      if (change) this.listeners.emit(change);
    });
    this.isLive = true;
    this.listeners.emit({ kind: 'feed', live: true });
  }

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    this.isLive = false;
    if (unlisten && !this.db.closed) await unlisten().catch(() => {});
  }
}
