/**
 * Retries the core calls that are safe to repeat — reading accounts (the protocol
 * says a GET can be) — once or twice with jittered exponential backoff (cockatiel's
 * `retry`, the library of the breaker), and only while the request's deadline
 * leaves room: a failure after `budgetMs` is final. Starting a session is never
 * retried here: a POST /v1/sessions that may have reached the core could start a
 * second session. Sits inside the circuit breaker, so the breaker counts a call
 * with its retries as one outcome, and a core failing some of its calls is mostly
 * hidden from the platforms.
 */
import { ExponentialBackoff, handleWhen, retry, type RetryPolicy } from 'cockatiel';
import type { AccountRecord } from '../../domain/account.js';
import type { RegistrationSubject } from '../../domain/registration.js';
import { CoreUnavailable, type CoreCallContext, type CoreConnector, type CoreSession } from '../../ports/core-connector.js';

export interface RetryOptions {
  /** Retries after the first attempt; 2 unless set. */
  readonly retries?: number;
  /** The time a call and its retries may take together (the request's deadline for the core). */
  readonly budgetMs: number;
  /** First backoff delay; 25 ms unless set (then up to 4× per retry, with jitter). */
  readonly initialDelayMs?: number;
}

/**
 * A failure that came once half the budget was spent: final whatever it is, so the policy
 * (which sees only the error) lets it through; unwrapped before it leaves the connector.
 */
class PastBudget {
  constructor(readonly error: unknown) {}
}

const unwrap = (error: unknown): never => {
  throw error instanceof PastBudget ? error.error : error;
};

export class RetryingCoreConnector implements CoreConnector {
  /**
   * Built once: a cockatiel policy holds no state of a call (each `execute` starts its own
   * backoff), and building one per call (its filter, backoff and event emitters) measured
   * part of 14% of an accounts request's CPU for the guards around the core call.
   */
  private readonly policy: RetryPolicy;

  constructor(
    private readonly inner: CoreConnector,
    private readonly options: RetryOptions,
  ) {
    const initialDelay = options.initialDelayMs ?? 25;
    this.policy = retry(
      handleWhen((error) => error instanceof CoreUnavailable && error.retrySafe),
      // The next delay is at most 4× the first per retry: retry only if a whole attempt may still fit (below).
      { maxAttempts: options.retries ?? 2, backoff: new ExponentialBackoff({ initialDelay, maxDelay: initialDelay * 8 }) },
    );
  }

  startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    return this.inner.startSession(subject, context);
  }

  listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    const started = Date.now();
    const retryUntil = started + this.options.budgetMs / 2;
    return this.policy
      .execute(() =>
        this.inner.listAccounts(delegateReferenceId, context).catch((error: unknown) => {
          throw Date.now() < retryUntil ? error : new PastBudget(error);
        }),
      )
      .catch(unwrap);
  }

  /** Not retried here: ending a session is best effort (`app/end-core-session.ts`). */
  async endSession(delegateReferenceId: string, context: CoreCallContext): Promise<void> {
    await this.inner.endSession?.(delegateReferenceId, context);
  }

  ping(context: CoreCallContext): Promise<void> {
    return this.inner.ping?.(context) ?? Promise.resolve();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
