/**
 * Deletes what is kept only for a while, in the background of `serve`: webhook
 * deliveries and events that settled (delivered or failed) more than
 * `COREGATE_WEBHOOK_RETENTION_DAYS` ago, and refresh tokens of chains that all
 * expired. A pass deletes in small batches with a pause between them, so it never
 * holds the database long; pending deliveries are never touched. The audit log is
 * not pruned here: it is append-only (docs/operations.md, "Retention").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../ports/clock.js';
import type { RefreshTokenStore } from '../ports/refresh-token-store.js';
import type { WebhookStore } from '../ports/webhook-store.js';

const DAY_MS = 24 * 3600 * 1000;

export interface RetentionPrunerOptions {
  readonly webhookRetentionDays: number;
  /** Rows deleted per statement. */
  readonly batchSize?: number;
  /** Pause between batches, leaving the database to requests. */
  readonly pauseMs?: number;
  /** Time between passes. */
  readonly intervalMs?: number;
  /** What a pass deleted, when it deleted anything. */
  readonly onPruned?: (deleted: { webhookRows: number; refreshTokens: number }) => void;
  /** A pass that failed (database down): logged, the next pass tries again. */
  readonly onError?: (error: unknown) => void;
}

/** Defaults: 200 rows a batch, 100 ms between batches, a pass every 10 minutes (and one a minute after start). */
const DEFAULT_BATCH_SIZE = 200;
const DEFAULT_PAUSE_MS = 100;
const DEFAULT_INTERVAL_MS = 10 * 60 * 1000;
const FIRST_PASS_DELAY_MS = 60 * 1000;
/** A pass stops after this many batches of one kind and goes on at the next. */
const MAX_BATCHES_PER_PASS = 500;

export class RetentionPruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  /** Set by `stop`: a pass under way ends after its current batch. */
  private stopping = false;

  constructor(
    private readonly webhooks: Pick<WebhookStore, 'pruneSettled'>,
    private readonly refreshTokens: Pick<RefreshTokenStore, 'pruneExpired'>,
    private readonly clock: Clock,
    private readonly options: RetentionPrunerOptions,
  ) {}

  /** One full pass; resolves with what it deleted. */
  async runOnce(): Promise<{ webhookRows: number; refreshTokens: number }> {
    const now = this.clock.now();
    const before = new Date(now.getTime() - this.options.webhookRetentionDays * DAY_MS);
    const webhookRows = await this.drain((limit) => this.webhooks.pruneSettled(before, limit));
    const refreshTokens = await this.drain((limit) => this.refreshTokens.pruneExpired(now, limit));
    return { webhookRows, refreshTokens };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = false;
    this.schedule(FIRST_PASS_DELAY_MS);
  }

  /** Stops the passes; a batch under way finishes (it is one short statement). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Batches until one deletes less than a full batch (or the pass's share is used up). */
  private async drain(batch: (limit: number) => Promise<number>): Promise<number> {
    const limit = this.options.batchSize ?? DEFAULT_BATCH_SIZE;
    let total = 0;
    for (let round = 0; round < MAX_BATCHES_PER_PASS; round += 1) {
      const deleted = await batch(limit);
      total += deleted;
      // Less than a full batch: nothing more is old enough (at worst one batch too many).
      if (deleted < limit || this.stopping) break;
      await sleep(this.options.pauseMs ?? DEFAULT_PAUSE_MS);
    }
    return total;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.runOnce()
        .then((deleted) => {
          if (deleted.webhookRows + deleted.refreshTokens > 0) this.options.onPruned?.(deleted);
        })
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule(this.options.intervalMs ?? DEFAULT_INTERVAL_MS);
        });
    }, delayMs);
    // Never what keeps a process alive.
    this.timer.unref();
  }
}
