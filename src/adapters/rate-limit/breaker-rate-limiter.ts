/**
 * The shared rate-limit store behind a circuit breaker (cockatiel's
 * `ConsecutiveBreaker`, the library of the core's breaker), with the process's own
 * memory as the fallback. A Redis that is down or hung (a paused server answers
 * nothing: each command would wait its timeout) costs `failures` slow calls, then
 * every budget is counted in this process's memory — per-process budgets, at normal
 * latency — until a probe after `halfOpenAfterMs` finds Redis answering again.
 *
 * Counting in memory rather than admitting everything keeps the brute-force budget
 * working while Redis is out (failed authentications are still refused once spent,
 * per process), and ordinary budgets stay as generous as one process's share.
 *
 * Every answer of Redis is also written into the memory store (`adopt`): a key this
 * process saw goes on, while Redis is away, from what it had spent there — an address
 * that used up the shared brute-force budget is not given a fresh one. The memory
 * store's key bound holds for these entries too (keys whose bucket is full are not kept).
 */
import {
  BrokenCircuitError,
  circuitBreaker,
  ConsecutiveBreaker,
  CircuitState,
  handleAll,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import type { RateLimitDecision } from '../../domain/rate-limit.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { MemoryRateLimiter } from './memory-rate-limiter.js';

export type StoreState = 'shared' | 'local';

export interface BreakerRateLimiterOptions {
  /** Consecutive failed calls that switch to the fallback; 3 unless set. */
  readonly failures?: number;
  /** How long the fallback is used before one call probes the shared store again; 5000 ms unless set. */
  readonly halfOpenAfterMs?: number;
  /** Called once per switch: `local` when the breaker opens, `shared` when it closes again. */
  readonly onStateChange?: (state: StoreState, cause: unknown) => void;
  /** Called for each call of the shared store that failed (and was answered from memory). */
  readonly onFailure?: ((error: unknown) => void) | undefined;
}

export class BreakerRateLimiter implements RateLimiter {
  private readonly policy: CircuitBreakerPolicy;
  private lastFailure: unknown;

  constructor(
    private readonly shared: RateLimiter,
    private readonly local: MemoryRateLimiter,
    private readonly options: BreakerRateLimiterOptions = {},
  ) {
    this.policy = circuitBreaker(handleAll, {
      halfOpenAfter: options.halfOpenAfterMs ?? 5000,
      breaker: new ConsecutiveBreaker(options.failures ?? 3),
    });
    this.policy.onBreak(() => options.onStateChange?.('local', this.lastFailure));
    this.policy.onReset(() => options.onStateChange?.('shared', undefined));
  }

  /** Where budgets are counted now. */
  get state(): StoreState {
    return this.policy.state === CircuitState.Closed ? 'shared' : 'local';
  }

  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.call(
      (store) => store.hit(key, limit, windowSeconds),
      (decision) => this.local.adopt(key, limit, windowSeconds, decision, true),
    );
  }

  peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.call(
      (store) => store.peek(key, limit, windowSeconds),
      (decision) => this.local.adopt(key, limit, windowSeconds, decision, false),
    );
  }

  connect(): Promise<void> {
    return this.shared.connect();
  }

  async close(): Promise<void> {
    await this.shared.close();
    await this.local.close();
  }

  /** `adopt` hears every answer of the shared store, to keep the memory store where the shared one is. */
  private async call(
    work: (store: RateLimiter) => Promise<RateLimitDecision>,
    adopt: (decision: RateLimitDecision) => void,
  ): Promise<RateLimitDecision> {
    // While a probe is out, the others do not queue behind it: they count locally.
    if (this.policy.state === CircuitState.HalfOpen) return work(this.local);
    try {
      const decision = await this.policy.execute(() =>
        work(this.shared).catch((error: unknown) => {
          this.lastFailure = error;
          throw error;
        }),
      );
      adopt(decision);
      return decision;
    } catch (error) {
      if (!(error instanceof BrokenCircuitError)) this.options.onFailure?.(error);
      return work(this.local);
    }
  }
}
