/**
 * Delivers the webhook outbox (docs/behaviour.md#webhook-delivery): at least once, one process
 * at a time per delivery (the store's leases), retried on the configured schedule, 410
 * disabling the endpoint. It runs in the background of `serve`, polling every `pollIntervalMs`
 * and nudged right after a commit of this process queued something, so requests never wait for
 * a receiver.
 *
 * Deliveries proceed independently: each attempt holds one of `maxInFlight` slots
 * and, at most `perEndpoint` at a time, a slot of its endpoint; a freed slot is
 * claimed again at once. A receiver that hangs holds its own endpoint's few slots
 * until its deadline, never another endpoint's delivery.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import { WebhookSendFailed, type WebhookSender } from '../ports/webhook-sender.js';
import type { AttemptOutcome, ClaimedDelivery, WebhookStore } from '../ports/webhook-store.js';
import { webhookHeaders } from './webhook-signature.js';

/** How long `stop` waits for attempts under way. */
const STOP_WAIT_MS = 2000;

export interface WebhookDispatcherOptions {
  /** Wait before each retry: entry k after the k-th failed attempt; past the end the delivery fails. */
  readonly retryScheduleSeconds: readonly number[];
  readonly pollIntervalMs?: number;
  /** Attempts under way at once in this process, over all endpoints. */
  readonly maxInFlight?: number;
  /** Attempts under way at once to one endpoint in this process. */
  readonly perEndpoint?: number;
  /** How long a claim keeps others off a delivery: longer than the sender's 10 s deadline. */
  readonly leaseSeconds?: number;
  /** Each attempt's outcome, for metrics and the log (never a body). */
  readonly onAttempt?: (delivery: ClaimedDelivery, outcome: AttemptOutcome) => void;
  /** The receiver answered 410 and its endpoint was disabled (an audit event). */
  readonly onEndpointGone?: (delivery: ClaimedDelivery) => Promise<void> | void;
  /** A delivery the target policy refused at send time (failed at once, not retried): logged as a warning. */
  readonly onRefused?: (delivery: ClaimedDelivery, reason: string) => void;
  /** A round that failed (database down): logged, the next poll tries again. */
  readonly onError?: (error: unknown) => void;
}

/** Default of {@link WebhookDispatcherOptions.maxInFlight}. */
const DEFAULT_MAX_IN_FLIGHT = 32;
/** Default of {@link WebhookDispatcherOptions.perEndpoint}. */
export const DEFAULT_PER_ENDPOINT = 4;

export class WebhookDispatcher {
  private readonly owner = randomUUID();
  private readonly pollIntervalMs: number;
  private readonly maxInFlight: number;
  private readonly perEndpoint: number;
  private readonly leaseSeconds: number;
  private timer: NodeJS.Timeout | undefined;
  /** The claim under way: one at a time, so two never count the same free slots. */
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts under way per endpoint id. */
  private readonly busy = new Map<string, number>();

  constructor(
    private readonly store: WebhookStore,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly options: WebhookDispatcherOptions,
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.perEndpoint = options.perEndpoint ?? DEFAULT_PER_ENDPOINT;
    this.leaseSeconds = options.leaseSeconds ?? 30;
  }

  /** Claims the due deliveries the free slots allow and attempts each; resolves, after them, with how many were attempted. */
  async runOnce(): Promise<number> {
    const started = await this.claimAndStart();
    await Promise.all(started);
    return started.length;
  }

  /** Claims what the free slots allow (each endpoint within its own limit) and starts those attempts without waiting for them. */
  private async claimAndStart(): Promise<Array<Promise<void>>> {
    const free = this.maxInFlight - this.inFlight.size;
    if (free <= 0) return [];
    const now = this.clock.now();
    const claimed = await this.store.claimDue(
      this.owner,
      now,
      new Date(now.getTime() + this.leaseSeconds * 1000),
      free,
      {
        perEndpoint: this.perEndpoint,
        busy: this.busy,
      },
    );
    return claimed.map((delivery) => this.begin(delivery));
  }

  private begin(delivery: ClaimedDelivery): Promise<void> {
    const endpoint = delivery.endpointId;
    this.busy.set(endpoint, (this.busy.get(endpoint) ?? 0) + 1);
    const running: Promise<void> = this.attempt(delivery)
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.inFlight.delete(running);
        const left = (this.busy.get(endpoint) ?? 1) - 1;
        if (left > 0) this.busy.set(endpoint, left);
        else this.busy.delete(endpoint);
        // A slot is free: whatever is due takes it now, not at the next poll.
        this.nudge();
      });
    this.inFlight.add(running);
    return running;
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
   * Stops polling and waits a little for the attempts under way. Not for a slow
   * receiver, though: shutdown must stay within its budget, and an attempt cut
   * short keeps its lease until it runs out, then is sent again (at least once).
   */
  async stop(waitMs = STOP_WAIT_MS): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.running && this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([this.running, ...this.inFlight]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
    ]);
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
      try {
        // Not waiting for the attempts: each one's end frees its slot and nudges the next claim.
        void (await this.claimAndStart());
      } catch (error) {
        this.options.onError?.(error);
      }
      this.running = undefined;
      const again = this.again;
      this.again = false;
      if (!this.stopped) this.schedule(again ? 0 : this.pollIntervalMs);
    })();
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    let outcome: AttemptOutcome;
    try {
      const answer = await this.sender.send(
        delivery.url,
        webhookHeaders(delivery.secrets, delivery.eventId, timestamp, delivery.body),
        delivery.body,
      );
      if (answer.status >= 200 && answer.status < 300) outcome = { kind: 'delivered', status: answer.status };
      else if (answer.status === 410)
        outcome = { kind: 'gone', status: 410, error: 'the receiver answered 410 Gone: endpoint disabled' };
      else outcome = this.failure(delivery, answer.status, `the receiver answered ${answer.status}`);
    } catch (error) {
      const reason = error instanceof WebhookSendFailed ? error.reason : 'unexpected error';
      // Refused by the target policy: every retry would be refused too.
      if (error instanceof WebhookSendFailed && error.refused) {
        outcome = { kind: 'failed', status: null, error: reason };
        this.options.onRefused?.(delivery, reason);
      } else outcome = this.failure(delivery, null, reason);
    }
    const recorded = await this.store.recordAttempt(delivery.id, this.owner, outcome, this.clock.now());
    this.options.onAttempt?.(delivery, outcome);
    if (recorded && outcome.kind === 'gone') await this.options.onEndpointGone?.(delivery);
  }

  /** A failed attempt: retried after the schedule's next wait, or failed for good past its end. */
  private failure(delivery: ClaimedDelivery, status: number | null, error: string): AttemptOutcome {
    const wait = this.options.retryScheduleSeconds[delivery.attempts];
    if (wait === undefined) return { kind: 'failed', status, error };
    return { kind: 'retry', status, error, nextAttemptAt: new Date(this.clock.now().getTime() + wait * 1000) };
  }
}
