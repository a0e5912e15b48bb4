/**
 * A circuit breaker in front of any {@link CoreConnector} (CONTRACT §4: "502, 503
 * once a circuit breaker is open"), on cockatiel's `SamplingBreaker`: it opens when
 * more than `failureRate` (half) of the core calls in the last `samplingSeconds`
 * failed — unreachable, timing out, 5xx, off-protocol answers — once at least
 * `minimumCalls` calls were made in that window. A core failing some of its calls
 * keeps serving the others; a core that is down opens the circuit within
 * `minimumCalls` calls. While open, calls are refused at once with
 * {@link CoreCircuitOpen} (503 with `Retry-After`) instead of each one waiting for
 * its timeout. After `cooldownSeconds` the next call goes through as the one probe
 * (half-open; the others are refused, told to come back in a second): its success
 * closes the circuit with an empty window, its failure opens it for another
 * cool-down. Answers that are not failures (a customer the core does not know, a
 * rejected session) prove the core works and count as successes.
 *
 * Time: cockatiel reads `Date.now()` (it takes no clock), so the breaker runs on
 * wall time, not on the injected Clock; tests move it with node:test's
 * `mock.timers` (the `Date` API). cockatiel moves its sampling window on by one
 * one-second slot per call, so after a quiet spell the window holds the last
 * calls made rather than strictly the last ten seconds.
 */
import {
  BrokenCircuitError,
  CircuitState as PolicyState,
  circuitBreaker,
  handleWhen,
  SamplingBreaker,
  type CircuitBreakerPolicy,
} from 'cockatiel';
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
import type { RegistrationSubject } from '../../domain/registration.js';
import type { CircuitState, CoreCallOperation } from '../../ports/metrics.js';

export interface CircuitBreakerOptions {
  /**
   * Calls within the sampling window before the failure rate may open the circuit
   * (COREGATE_CORE_BREAKER_FAILURES); at least 1. A core that fails every call
   * opens it after this many calls.
   */
  readonly minimumCalls: number;
  /** How long the circuit stays open before one probe call may go through (COREGATE_CORE_BREAKER_COOLDOWN_SECONDS). */
  readonly cooldownSeconds: number;
  /** The share of failed calls above which the circuit opens, strictly between 0 and 1; 0.5 unless set. */
  readonly failureRate?: number;
  /** The sliding window the failure rate is taken over, in seconds; 10 unless set. */
  readonly samplingSeconds?: number;
  /**
   * Called on every change of state, with the failure that caused an opening and
   * the id of the request whose call saw the change (so its log line can name it).
   */
  readonly onStateChange?: (state: CircuitState, cause: unknown, requestId: string) => void;
  /** Called for every call refused because the circuit is open. */
  readonly onRejected?: (operation: CoreCallOperation) => void;
}

/** Only failures of the core itself open the circuit; its typed answers show it works. */
function isCoreFailure(error: unknown): boolean {
  return error instanceof CoreUnavailable || error instanceof CoreProtocolError;
}

const STATES: Record<PolicyState, CircuitState> = {
  [PolicyState.Closed]: 'closed',
  [PolicyState.Open]: 'open',
  [PolicyState.HalfOpen]: 'half_open',
  // Never used: coregate does not isolate the circuit by hand.
  [PolicyState.Isolated]: 'open',
};

/** What a guarded call settled with: a typed answer of the core travels as a success. */
type Outcome<T> = { readonly value: T } | { readonly answer: CoreError };

export class CircuitBreakerConnector implements CoreConnector {
  private readonly policy: CircuitBreakerPolicy;
  private readonly cooldownMs: number;
  /** The state last reported through `onStateChange`. */
  private reported: CircuitState = 'closed';

  constructor(
    private readonly inner: CoreConnector,
    private readonly options: CircuitBreakerOptions,
  ) {
    const failureRate = options.failureRate ?? 0.5;
    const samplingSeconds = options.samplingSeconds ?? 10;
    if (!Number.isInteger(options.minimumCalls) || options.minimumCalls < 1) throw new RangeError('minimumCalls must be a whole number ≥ 1');
    if (!(options.cooldownSeconds > 0)) throw new RangeError('cooldownSeconds must be positive');
    if (!(failureRate > 0 && failureRate < 1)) throw new RangeError('failureRate must be between 0 and 1');
    if (!(samplingSeconds >= 1)) throw new RangeError('samplingSeconds must be at least 1');
    this.cooldownMs = options.cooldownSeconds * 1000;
    this.policy = circuitBreaker(handleWhen(isCoreFailure), {
      halfOpenAfter: this.cooldownMs,
      breaker: new SamplingBreaker({
        threshold: failureRate,
        duration: samplingSeconds * 1000,
        // cockatiel wants a rate and compares `calls < window × rate`: half a call
        // less keeps floating point from asking for one call more than configured.
        minimumRps: (options.minimumCalls - 0.5) / samplingSeconds,
      }),
    });
  }

  /** The state now: `open` until the first call after the cool-down makes it `half_open`. */
  get state(): CircuitState {
    return STATES[this.policy.state];
  }

  startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    return this.guard('startSession', context, () => this.inner.startSession(subject, context));
  }

  listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    return this.guard('listAccounts', context, () => this.inner.listAccounts(delegateReferenceId, context));
  }

  async endSession(delegateReferenceId: string, context: CoreCallContext): Promise<void> {
    const inner = this.inner;
    if (inner.endSession) await this.guard('endSession', context, () => inner.endSession!(delegateReferenceId, context));
  }

  /** Readiness looks at the core itself, whatever the circuit's state, and does not move it. */
  async ping(context: CoreCallContext): Promise<void> {
    await this.inner.ping?.(context);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async guard<T>(operation: CoreCallOperation, context: CoreCallContext, call: () => Promise<T>): Promise<T> {
    // cockatiel would hold the others until the probe answers; they are refused instead, told to come back soon.
    if (this.policy.state === PolicyState.HalfOpen) this.reject(operation, 1);
    let pending: Promise<Outcome<T>>;
    try {
      pending = this.policy.execute(async (): Promise<Outcome<T>> => {
        try {
          return { value: await call() };
        } catch (error) {
          if (error instanceof CoreError && !isCoreFailure(error)) return { answer: error };
          // Core failures count; errors that are not the core's (a bug on our side) neither count nor forgive.
          throw error;
        }
      });
      // A call after the cool-down has just made the circuit half-open: it is the probe.
      this.report(context.requestId);
      const outcome = await pending;
      if ('answer' in outcome) throw outcome.answer;
      return outcome.value;
    } catch (error) {
      if (error instanceof BrokenCircuitError) this.reject(operation, this.secondsLeft());
      throw error;
    } finally {
      this.report(context.requestId);
    }
  }

  private secondsLeft(): number {
    const { ownState } = this.policy.toJSON() as { ownState: { openedAt?: number } };
    return Math.ceil(((ownState.openedAt ?? 0) + this.cooldownMs - Date.now()) / 1000);
  }

  private reject(operation: CoreCallOperation, retryAfterSeconds: number): never {
    this.options.onRejected?.(operation);
    throw new CoreCircuitOpen(Math.max(1, retryAfterSeconds));
  }

  /**
   * Tells `onStateChange` of a change cockatiel made, named after the request that
   * sees it first. cockatiel's own events carry no request, and the change is seen
   * right after the call that made it settles.
   */
  private report(requestId: string): void {
    const state = this.state;
    if (state === this.reported) return;
    this.reported = state;
    const failure = this.policy.lastFailure;
    const cause = state === 'open' && failure && 'error' in failure ? failure.error : undefined;
    this.options.onStateChange?.(state, cause, requestId);
  }
}
