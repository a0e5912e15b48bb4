/**
 * The rate limits' Prometheus series, read from the throttle's counters when
 * scraped (nothing is added to the request path):
 * - `coregate_rate_limited_total{scope}` — requests refused with 429, by budget
 *   (`gateway_client`, `token_client`, `token_ip`, `auth_failures_ip`, `bearer_failures_ip`);
 * - `coregate_rate_limiter_failures_total` — limiter checks that failed (Redis
 *   unreachable or slow) and so admitted their request (fail open).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { StoreState } from './breaker-rate-limiter.js';

/**
 * The counters the series are read from (the request throttle keeps them); a plain
 * shape so that this adapter does not depend on the use case that counts.
 */
export interface RateLimitCounters {
  /** Requests refused with 429, by budget. */
  readonly refused: Readonly<Record<string, number>>;
  /** Limiter checks that failed and admitted their request. */
  readonly limiterFailures: number;
}

export function registerRateLimitMetrics(registry: Registry, throttle: RateLimitCounters): void {
  new Counter({
    name: 'coregate_rate_limited_total',
    help: 'Requests refused with 429 by a rate limit, by budget (gateway_client, token_client, token_ip, auth_failures_ip, bearer_failures_ip)',
    labelNames: ['scope'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [scope, count] of Object.entries(throttle.refused)) this.inc({ scope }, count);
    },
  });
  new Counter({
    name: 'coregate_rate_limiter_failures_total',
    help: 'Rate-limit checks whose store failed (Redis unreachable or slow): answered from process memory, or admitted without a limit',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(throttle.limiterFailures);
    },
  });
}

/**
 * `coregate_rate_limit_store_local` — 1 while the shared store's breaker is open and
 * budgets are counted in this process's memory (alert on it), 0 while shared.
 */
export function registerRateLimitStoreMetrics(registry: Registry, store: { readonly state: StoreState }): void {
  new Gauge({
    name: 'coregate_rate_limit_store_local',
    help: '1 while the shared rate-limit store (Redis) is failing and budgets are counted per process, else 0',
    registers: [registry],
    collect() {
      this.set(store.state === 'local' ? 1 : 0);
    },
  });
}
