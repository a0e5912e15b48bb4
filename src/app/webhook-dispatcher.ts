/**
 * Delivers the webhook outbox (CONTRACT §9): at least once, one process at a time
 * per delivery (the store's leases), retried on the configured schedule, 410
 * disabling the endpoint. It runs in the background of `serve`, polling every
 * `pollIntervalMs` and nudged right after a commit of this process queued
 * something, so requests never wait for a receiver.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import { WebhookSendFailed, type WebhookSender } from '../ports/webhook-sender.js';
import type { AttemptOutcome, ClaimedDelivery, WebhookStore } from '../ports/webhook-store.js';
import { webhookHeaders } from './webhook-signature.js';

/** Default `COREGATE_WEBHOOK_RETRY_SCHEDULE_SECONDS`: 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, 24 h, then failed. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 30, 120, 600, 3600, 21600, 86400];

/** How long `stop` waits for attempts under way. */
const STOP_WAIT_MS = 2000;

export interface WebhookDispatcherOptions {
  /** Wait before each retry: entry k after the k-th failed attempt; past the end the delivery fails. */
  readonly retryScheduleSeconds: readonly number[];
  readonly pollIntervalMs?: number;
  /** Deliveries claimed (and sent in parallel) per round. */
  readonly batchSize?: number;
  /** How long a claim keeps others off a delivery: longer than the sender's 10 s deadline. */
  readonly leaseSeconds?: number;
  /** Each attempt's outcome, for metrics and the log (never a body). */
  readonly onAttempt?: (delivery: ClaimedDelivery, outcome: AttemptOutcome) => void;
  /** A round that failed (database down): logged, the next poll tries again. */
  readonly onError?: (error: unknown) => void;
}

export class WebhookDispatcher {
  private readonly owner = randomUUID();
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly leaseSeconds: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly store: WebhookStore,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly options: WebhookDispatcherOptions,
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 20;
    this.leaseSeconds = options.leaseSeconds ?? 30;
  }

  /** Claims the due deliveries once and attempts each; resolves with how many were attempted. */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    const claimed = await this.store.claimDue(this.owner, now, new Date(now.getTime() + this.leaseSeconds * 1000), this.batchSize);
    await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
    return claimed.length;
  }

  /** Starts polling in the background. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Something was queued: run now rather than at the next poll. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /**
   * Stops polling and waits a little for the round under way. Not for a slow
   * receiver, though: shutdown must stay within its budget, and an attempt cut
   * short keeps its lease until it runs out, then is sent again (at least once).
   */
  async stop(waitMs = STOP_WAIT_MS): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.running) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.round(), delayMs);
    // Never what keeps a process alive.
    this.timer.unref();
  }

  private round(): void {
    this.timer = undefined;
    if (this.stopped || this.running) return;
    this.running = (async () => {
      let full = false;
      try {
        // A full batch means more may be due: go on at once.
        full = (await this.runOnce()) >= this.batchSize;
      } catch (error) {
        this.options.onError?.(error);
      }
      this.running = undefined;
      const again = this.again || full;
      this.again = false;
      if (!this.stopped) this.schedule(again ? 0 : this.pollIntervalMs);
    })();
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    let outcome: AttemptOutcome;
    try {
      const answer = await this.sender.send(delivery.url, webhookHeaders(delivery.secrets, delivery.eventId, timestamp, delivery.body), delivery.body);
      if (answer.status >= 200 && answer.status < 300) outcome = { kind: 'delivered', status: answer.status };
      else if (answer.status === 410) outcome = { kind: 'gone', status: 410 };
      else outcome = this.failure(delivery, answer.status, `the receiver answered ${answer.status}`);
    } catch (error) {
      const reason = error instanceof WebhookSendFailed ? error.reason : 'unexpected error';
      outcome = this.failure(delivery, null, reason);
    }
    await this.store.recordAttempt(delivery.id, this.owner, outcome, this.clock.now());
    this.options.onAttempt?.(delivery, outcome);
  }

  /** A failed attempt: retried after the schedule's next wait, or failed for good past its end. */
  private failure(delivery: ClaimedDelivery, status: number | null, error: string): AttemptOutcome {
    const wait = this.options.retryScheduleSeconds[delivery.attempts];
    if (wait === undefined) return { kind: 'failed', status, error };
    return { kind: 'retry', status, error, nextAttemptAt: new Date(this.clock.now().getTime() + wait * 1000) };
  }
}
