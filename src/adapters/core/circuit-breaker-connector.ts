/**
 * A circuit breaker in front of any {@link CoreConnector} (CONTRACT §4: "502, 503
 * once a circuit breaker is open"). After `failureThreshold` consecutive failures
 * of the core — unreachable, timing out, 5xx, off-protocol answers — it opens:
 * calls are refused at once with {@link CoreCircuitOpen} (503 with `Retry-After`)
 * instead of each one waiting for its timeout. After `cooldownSeconds` the next
 * call goes through as the one probe (half-open): its success closes the
 * circuit, its failure opens it for another cool-down. Answers that are not
 * failures (a customer the core does not know, a rejected session) prove the core
 * works and count as successes.
 */
import {
  CoreCircuitOpen,
  CoreProtocolError,
  CoreUnavailable,
  CoreError,
  type CoreCallContext,
  type CoreConnector,
  type CoreSession,
} from '../../ports/core-connector.js';
import type { AccountRecord } from '../../domain/account.js';
import type { Clock } from '../../ports/clock.js';
import type { CircuitState, CoreCallOperation } from '../../ports/metrics.js';
import type { RegistrationSubject } from '../../domain/registration.js';

export interface CircuitBreakerOptions {
  readonly clock: Clock;
  /** Consecutive failures that open the circuit (COREGATE_CORE_BREAKER_FAILURES); at least 1. */
  readonly failureThreshold: number;
  /** How long the circuit stays open before one probe call may go through (COREGATE_CORE_BREAKER_COOLDOWN_SECONDS). */
  readonly cooldownSeconds: number;
  /**
   * Called on every change of state, with the failure that caused an opening and
   * the id of the request whose call made the change (so its log line can name it).
   */
  readonly onStateChange?: (state: CircuitState, cause: unknown, requestId: string) => void;
  /** Called for every call refused because the circuit is open. */
  readonly onRejected?: (operation: CoreCallOperation) => void;
}

/** What a call was admitted as: `generation` ties its result to the state it started in. */
interface Ticket {
  readonly generation: number;
  readonly probe: boolean;
}

type Verdict = 'failure' | 'success' | 'neutral';

/** Only failures of the core itself open the circuit; its typed answers show it works. */
function verdict(error: unknown): Verdict {
  if (error instanceof CoreUnavailable || error instanceof CoreProtocolError) return 'failure';
  if (error instanceof CoreError) return 'success';
  // A bug on our side says nothing about the core.
  return 'neutral';
}

export class CircuitBreakerConnector implements CoreConnector {
  private current: CircuitState = 'closed';
  private failures = 0;
  private openUntilMs = 0;
  private probing = false;
  /** Moves on with every change of state, so a slow call's result cannot act on a later state. */
  private generation = 0;

  constructor(
    private readonly inner: CoreConnector,
    private readonly options: CircuitBreakerOptions,
  ) {
    if (!Number.isInteger(options.failureThreshold) || options.failureThreshold < 1) throw new RangeError('failureThreshold must be a whole number ≥ 1');
    if (!(options.cooldownSeconds > 0)) throw new RangeError('cooldownSeconds must be positive');
  }

  /** The state now: `open` until the first call after the cool-down makes it `half_open`. */
  get state(): CircuitState {
    return this.current;
  }

  startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    return this.guard('startSession', context, () => this.inner.startSession(subject, context));
  }

  listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    return this.guard('listAccounts', context, () => this.inner.listAccounts(delegateReferenceId, context));
  }

  /** Readiness looks at the core itself, whatever the circuit's state, and does not move it. */
  async ping(context: CoreCallContext): Promise<void> {
    await this.inner.ping?.(context);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async guard<T>(operation: CoreCallOperation, context: CoreCallContext, call: () => Promise<T>): Promise<T> {
    const ticket = this.admit(operation, context.requestId);
    let result: T;
    try {
      result = await call();
    } catch (error) {
      this.settle(ticket, verdict(error), error, context.requestId);
      throw error;
    }
    this.settle(ticket, 'success', undefined, context.requestId);
    return result;
  }

  private admit(operation: CoreCallOperation, requestId: string): Ticket {
    const now = this.options.clock.now().getTime();
    if (this.current === 'open') {
      if (now < this.openUntilMs) this.reject(operation, Math.ceil((this.openUntilMs - now) / 1000));
      this.moveTo('half_open', undefined, requestId);
    }
    if (this.current === 'half_open') {
      // One probe at a time; the others hear back soon, once the probe has an answer.
      if (this.probing) this.reject(operation, 1);
      this.probing = true;
      return { generation: this.generation, probe: true };
    }
    return { generation: this.generation, probe: false };
  }

  private reject(operation: CoreCallOperation, retryAfterSeconds: number): never {
    this.options.onRejected?.(operation);
    throw new CoreCircuitOpen(Math.max(1, retryAfterSeconds));
  }

  private settle(ticket: Ticket, outcome: Verdict, cause: unknown, requestId: string): void {
    if (ticket.generation !== this.generation) return;
    if (ticket.probe) {
      this.probing = false;
      if (outcome === 'success') this.moveTo('closed', undefined, requestId);
      else if (outcome === 'failure') this.open(cause, requestId);
      // neutral: the next call probes again.
      return;
    }
    if (outcome === 'success') this.failures = 0;
    else if (outcome === 'failure') {
      this.failures += 1;
      if (this.failures >= this.options.failureThreshold) this.open(cause, requestId);
    }
  }

  private open(cause: unknown, requestId: string): void {
    this.openUntilMs = this.options.clock.now().getTime() + this.options.cooldownSeconds * 1000;
    this.moveTo('open', cause, requestId);
  }

  private moveTo(state: CircuitState, cause: unknown, requestId: string): void {
    this.current = state;
    this.generation += 1;
    this.failures = 0;
    this.probing = false;
    this.options.onStateChange?.(state, cause, requestId);
  }
}
