/**
 * The access tokens revoked by their clients (RFC 7009), held in memory by `jti` so
 * that the bearer check refuses them with one map lookup and no database read. Every
 * process learns of a revocation made anywhere through the change feed at once; a
 * process whose feed is not live reads the list again every {@link POLL_WHILE_FEED_DOWN_MS},
 * and reads it all when the feed is live again (announcements may have been missed).
 * An entry is dropped once its token has expired: the token is refused by its `exp` then.
 */
import type { FeedLiveness } from '../ports/change-feed.js';
import type { Clock } from '../ports/clock.js';
import type { RevokedAccessTokenStore } from '../ports/revoked-access-token-store.js';

/** How often the list is read while the change feed is down, and expired entries dropped. */
const POLL_WHILE_FEED_DOWN_MS = 1000;

export class RevokedAccessTokens {
  /** jti → the token's `exp` in seconds. */
  private readonly revoked = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** The last read failed: the next tick reads again, feed or not. */
  private stale = false;

  constructor(
    private readonly store: RevokedAccessTokenStore,
    private readonly clock: Clock,
    /** Without a feed (a CLI command) the list is read once and kept current by this process's own revocations only. */
    private readonly feed?: FeedLiveness,
  ) {}

  /** Whether the token with this `jti` was revoked (and has not expired since). */
  isRevoked(jti: string): boolean {
    return this.revoked.has(jti);
  }

  /** A revocation, announced by the change feed or made by this process. */
  remember(jti: string, exp: number): void {
    if (exp * 1000 > this.clock.now().getTime()) this.revoked.set(jti, exp);
  }

  /** Reads every live revocation (at start, and when the feed is live again); adds to what is held. */
  async reload(): Promise<void> {
    let live;
    try {
      live = await this.store.listLive(this.clock.now());
    } catch (error) {
      this.stale = true;
      throw error;
    }
    this.stale = false;
    for (const token of live) this.remember(token.jti, Math.floor(token.expiresAt.getTime() / 1000));
  }

  /** Starts dropping expired entries, and polling while the feed is down; `onError` hears failed reads. */
  start(onError: (error: unknown) => void): void {
    this.timer ??= setInterval(() => {
      this.prune();
      if (this.stale || (this.feed && !this.feed.live)) this.reload().catch(onError);
    }, POLL_WHILE_FEED_DOWN_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private prune(): void {
    const nowSeconds = this.clock.now().getTime() / 1000;
    for (const [jti, exp] of this.revoked) if (exp <= nowSeconds) this.revoked.delete(jti);
  }
}
