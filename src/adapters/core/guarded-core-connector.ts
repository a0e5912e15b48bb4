/**
 * The core as the use cases see it: one transport (the HTTP connector or the
 * in-process simulator) guarded once by cockatiel policies, every call that reaches
 * the core counted and timed (`coregate_core_requests_total`, by operation and
 * outcome, under the institution's label).
 *
 * - Reading accounts and transactions is safe to repeat (a GET, docs/core-protocol.md): it goes
 *   through `wrap(breaker, retry)`. The retry sits inside the breaker, so the breaker
 *   takes a call with its retries as one outcome and a core failing some of its calls
 *   is mostly hidden from the platforms.
 * - Starting and ending a session go through the breaker alone: a POST /v1/sessions
 *   that may have reached the core could start a second session, and ending one is
 *   best effort (`app/end-core-session.ts`).
 * - The readiness ping goes to the core whatever the circuit's state, and does not
 *   move it.
 *
 * Retries: after a core failure that is safe to repeat, once or twice with jittered
 * exponential backoff, and only while less than half of the core timeout has passed
 * since the call began; a failure after that is final. Each attempt keeps the
 * transport's own deadline, so a call with its retries ends within about one and a
 * half core timeouts (plus the backoff).
 *
 * The breaker (cockatiel's `SamplingBreaker`) opens when more than `failureRate`
 * (half) of the calls in the last `samplingSeconds` failed — unreachable, timing out,
 * 5xx, off-protocol answers — once at least `minimumCalls` calls were made in that
 * window. A core failing some of its calls keeps serving the others; a core that is
 * down opens the circuit within `minimumCalls` calls. While open, calls are refused at
 * once with {@link CoreCircuitOpen} (503 with `Retry-After`) instead of each one
 * waiting for its timeout. After `cooldownSeconds` the next call goes through as the
 * one probe (half-open; the others are refused, told to come back in a second): its
 * success closes the circuit with an empty window, its failure opens it for another
 * cool-down. Answers that are not failures (a customer the core does not know, a
 * rejected session, a 429 asking to slow down) prove the core works and count as
 * successes; errors that are not the core's (a bug on our side) neither count nor
 * forgive. A 429 is not retried either: the platform is told to come back later.
 *
 * Time: cockatiel reads `Date.now()` (it takes no clock), so the breaker and the retry
 * window run on wall time, not on the injected Clock; tests move it with node:test's
 * `mock.timers` (the `Date` API). cockatiel moves its sampling window on by one
 * one-second slot per call, so after a quiet spell the window holds the last calls
 * made rather than strictly the last ten seconds.
 */
import { performance } from 'node:perf_hooks';
import {
  BrokenCircuitError,
  CircuitState as PolicyState,
  circuitBreaker,
  ExponentialBackoff,
  handleWhenResult,
  noop,
  retry,
  SamplingBreaker,
  wrap,
  type CircuitBreakerPolicy,
  type IPolicy,
} from 'cockatiel';
import type { AccountRecord } from '../../domain/account.js';
import { DEFAULT_INSTITUTION } from '../../domain/institution.js';
import { inSpan, markFailed, SpanKind } from '../../ports/tracing.js';
import type { RegistrationSubject } from '../../domain/registration.js';
import {
  AccountNotFound,
  CoreBusy,
  CoreCircuitOpen,
  CoreError,
  CoreProtocolError,
  CoreUnavailable,
  CustomerNotRecognised,
  SessionRejected,
  TransactionsNotSupported,
  type CoreCallContext,
  type CoreConnector,
  type CoreSession,
  type TransactionPage,
  type TransactionPageRequest,
} from '../../ports/core-connector.js';
import type { CircuitState, CoreCallOperation, CoreCallOutcome, MetricsRecorder } from '../../ports/metrics.js';

export interface CoreBreakerOptions {
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

export interface CoreRetryOptions {
  /** Retries after the first attempt (COREGATE_CORE_RETRIES); 2 unless set. */
  readonly retries?: number;
  /** The core timeout: retries are started only while less than half of it has passed. */
  readonly budgetMs: number;
  /** First backoff delay; 25 ms unless set (then up to four times longer per retry, with jitter). */
  readonly initialDelayMs?: number;
}

export interface CoreGuardOptions {
  readonly metrics: Pick<MetricsRecorder, 'coreCall'>;
  /** The metric label `institution` of this core's calls; `default` unless set. */
  readonly institution?: string;
  /** Retries of reading accounts; none when absent or with 0 retries. */
  readonly retry?: CoreRetryOptions;
  /** The circuit breaker; none when absent (COREGATE_CORE_BREAKER_FAILURES=0). */
  readonly breaker?: CoreBreakerOptions;
}

/**
 * How one attempt settled, always as a value: cockatiel's result filters then decide
 * what the retry repeats (`retryable`) and what the breaker counts (core failures).
 * Only errors that are not the core's are thrown, and neither policy handles them.
 */
type Settled<T> = { readonly value: T } | { readonly error: CoreError; readonly retryable: boolean };

/** The `retryUntil` of calls never retried. */
const NEVER = 0;

/** Only failures of the core itself open the circuit; its typed answers show it works. */
function isCoreFailure(error: unknown): boolean {
  return error instanceof CoreUnavailable || error instanceof CoreProtocolError;
}

function outcomeOf(error: unknown): CoreCallOutcome {
  if (error instanceof CustomerNotRecognised) return 'customer_not_recognised';
  if (error instanceof SessionRejected) return 'session_rejected';
  if (error instanceof CoreUnavailable) return 'unavailable';
  if (error instanceof CoreBusy) return 'busy';
  if (error instanceof CoreProtocolError) return 'protocol_error';
  if (error instanceof AccountNotFound) return 'account_not_found';
  if (error instanceof TransactionsNotSupported) return 'not_supported';
  return 'error';
}

const STATES: Record<PolicyState, CircuitState> = {
  [PolicyState.Closed]: 'closed',
  [PolicyState.Open]: 'open',
  [PolicyState.HalfOpen]: 'half_open',
  // Never used: coregate does not isolate the circuit by hand.
  [PolicyState.Isolated]: 'open',
};

/** One core's circuit breaker: cockatiel's policy, and what the operator and the platforms hear of it. */
export class CoreBreaker {
  readonly policy: CircuitBreakerPolicy;
  private readonly cooldownMs: number;
  /** The state last reported through `onStateChange`. */
  private reported: CircuitState = 'closed';

  constructor(private readonly options: CoreBreakerOptions) {
    const failureRate = options.failureRate ?? 0.5;
    const samplingSeconds = options.samplingSeconds ?? 10;
    if (!Number.isInteger(options.minimumCalls) || options.minimumCalls < 1)
      throw new RangeError('minimumCalls must be a whole number ≥ 1');
    if (!(options.cooldownSeconds > 0)) throw new RangeError('cooldownSeconds must be positive');
    if (!(failureRate > 0 && failureRate < 1)) throw new RangeError('failureRate must be between 0 and 1');
    if (!(samplingSeconds >= 1)) throw new RangeError('samplingSeconds must be at least 1');
    this.cooldownMs = options.cooldownSeconds * 1000;
    this.policy = circuitBreaker(
      handleWhenResult(
        (settled) => 'error' in (settled as Settled<unknown>) && isCoreFailure((settled as { error: unknown }).error),
      ),
      {
        halfOpenAfter: this.cooldownMs,
        breaker: new SamplingBreaker({
          threshold: failureRate,
          duration: samplingSeconds * 1000,
          // cockatiel wants a rate and compares `calls < window × rate`: half a call
          // less keeps floating point from asking for one call more than configured.
          minimumRps: (options.minimumCalls - 0.5) / samplingSeconds,
        }),
      },
    );
  }

  /** The state now: `open` until the first call after the cool-down makes it `half_open`. */
  get state(): CircuitState {
    return STATES[this.policy.state];
  }

  /**
   * Runs `attempt` through `policy` (this breaker, alone or wrapping a retry), or
   * refuses it at once with {@link CoreCircuitOpen} while the circuit is open or its
   * probe is out.
   */
  async run<T>(
    operation: CoreCallOperation,
    requestId: string,
    policy: IPolicy,
    attempt: () => Promise<Settled<T>>,
  ): Promise<Settled<T>> {
    // cockatiel would hold the others until the probe answers; they are refused instead, told to come back soon.
    if (this.policy.state === PolicyState.HalfOpen) this.reject(operation, 1);
    try {
      const pending = policy.execute(attempt);
      // A call after the cool-down has just made the circuit half-open: it is the probe.
      this.report(requestId);
      return await pending;
    } catch (error) {
      if (error instanceof BrokenCircuitError) this.reject(operation, this.secondsLeft());
      throw error;
    } finally {
      this.report(requestId);
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
    const settled = failure && 'value' in failure ? (failure.value as Settled<unknown>) : undefined;
    const cause = state === 'open' && settled && 'error' in settled ? settled.error : undefined;
    this.options.onStateChange?.(state, cause, requestId);
  }
}

export class GuardedCoreConnector implements CoreConnector {
  /** The circuit breaker, for its state (tests, operations); `undefined` when there is none. */
  readonly breaker: CoreBreaker | undefined;
  /** Reading accounts: `wrap(breaker, retry)`, or whichever of the two is configured. */
  private readonly safeCalls: IPolicy;
  /** Starting and ending sessions: the breaker alone, or nothing. */
  private readonly otherCalls: IPolicy;
  private readonly retryWindowMs: number;
  private readonly institution: string;

  constructor(
    /** The transport it guards (the HTTP, in-process or Fineract connector). */
    readonly transport: CoreConnector,
    private readonly options: CoreGuardOptions,
  ) {
    this.institution = options.institution ?? DEFAULT_INSTITUTION;
    this.breaker = options.breaker ? new CoreBreaker(options.breaker) : undefined;
    const retries = options.retry?.retries ?? 2;
    this.retryWindowMs = (options.retry?.budgetMs ?? 0) / 2;
    // Built once: a policy holds no state of a call (each `execute` starts its own backoff),
    // and building one per call was a noticeable share of an accounts request's CPU.
    const retrying =
      options.retry && retries > 0 ? retryPolicy(retries, options.retry.initialDelayMs ?? 25) : undefined;
    this.otherCalls = this.breaker?.policy ?? noop;
    this.safeCalls = this.breaker && retrying ? wrap(this.breaker.policy, retrying) : (retrying ?? this.otherCalls);
  }

  startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    return this.guard('startSession', context, this.otherCalls, NEVER, () =>
      this.transport.startSession(subject, context),
    );
  }

  listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    return this.guard('listAccounts', context, this.safeCalls, Date.now() + this.retryWindowMs, () =>
      this.transport.listAccounts(delegateReferenceId, context),
    );
  }

  /**
   * A page of transactions: a GET like reading accounts, so retried and broken alike. A
   * transport without the call does not offer transactions: refused without a call.
   */
  listTransactions(
    delegateReferenceId: string,
    request: TransactionPageRequest,
    context: CoreCallContext,
  ): Promise<TransactionPage> {
    const list = this.transport.listTransactions?.bind(this.transport);
    if (!list) return Promise.reject(new TransactionsNotSupported('this kind of core has no transactions call yet'));
    return this.guard('listTransactions', context, this.safeCalls, Date.now() + this.retryWindowMs, () =>
      list(delegateReferenceId, request, context),
    );
  }

  /** Resolves without a call when the transport cannot end sessions (the session expires at the core). */
  async endSession(delegateReferenceId: string, context: CoreCallContext): Promise<void> {
    const end = this.transport.endSession?.bind(this.transport);
    if (end) await this.guard('endSession', context, this.otherCalls, NEVER, () => end(delegateReferenceId, context));
  }

  /** Readiness looks at the core itself, whatever the circuit's state, and does not move it. */
  async ping(context: CoreCallContext): Promise<void> {
    const ping = this.transport.ping?.bind(this.transport);
    if (!ping) return;
    const settled = await this.attempt('ping', NEVER, () => ping(context));
    if ('error' in settled) throw settled.error;
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /** Runs `call` through `policy`, its core failures retryable (where `policy` retries) until the wall time `retryUntil`. */
  private async guard<T>(
    operation: CoreCallOperation,
    context: CoreCallContext,
    policy: IPolicy,
    retryUntil: number,
    call: () => Promise<T>,
  ): Promise<T> {
    const attempt = () => this.attempt(operation, retryUntil, call);
    const settled = this.breaker
      ? await this.breaker.run(operation, context.requestId, policy, attempt)
      : await policy.execute(attempt);
    if ('error' in settled) throw settled.error;
    return settled.value;
  }

  /**
   * One call to the core, counted, timed and traced (a client span per attempt, whose
   * `traceparent` the transport sends); a core error settles as a value, retryable until `retryUntil`.
   */
  private attempt<T>(operation: CoreCallOperation, retryUntil: number, call: () => Promise<T>): Promise<Settled<T>> {
    return inSpan(
      `core ${operation}`,
      {
        kind: SpanKind.CLIENT,
        childOnly: true,
        attributes: { 'coregate.institution': this.institution, 'coregate.core.operation': operation },
      },
      async (span) => {
        const started = performance.now();
        try {
          const value = await call();
          this.options.metrics.coreCall(operation, 'ok', (performance.now() - started) / 1000, this.institution);
          span.setAttribute('coregate.core.outcome', 'ok');
          return { value };
        } catch (error) {
          const outcome = outcomeOf(error);
          this.options.metrics.coreCall(operation, outcome, (performance.now() - started) / 1000, this.institution);
          span.setAttribute('coregate.core.outcome', outcome);
          if (!(error instanceof CoreError)) throw error;
          markFailed(span, outcome);
          return { error, retryable: error instanceof CoreUnavailable && error.retrySafe && Date.now() < retryUntil };
        }
      },
    );
  }
}

/** Repeats an attempt that settled retryable: each next delay is at most four times the one before, with jitter. */
function retryPolicy(retries: number, initialDelay: number): IPolicy {
  return retry(
    handleWhenResult(
      (settled) => 'error' in (settled as Settled<unknown>) && (settled as { retryable: boolean }).retryable,
    ),
    {
      maxAttempts: retries,
      backoff: new ExponentialBackoff({ initialDelay, maxDelay: initialDelay * 8 }),
    },
  );
}
