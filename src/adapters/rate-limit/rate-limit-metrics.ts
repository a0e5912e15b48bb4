/**
 * The rate limits' Prometheus series, read from the throttle's counters when
 * scraped (nothing is added to the request path):
 * - `coregate_rate_limited_total{scope}` — requests refused with 429, by budget
 *   (`gateway_client`, `token_client`, `token_ip`, `auth_failures_ip`);
 * - `coregate_rate_limiter_failures_total` — limiter checks that failed (Redis
 *   unreachable or slow) and so admitted their request (fail open).
 */
import { Counter, type Registry } from 'prom-client';

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
    help: 'Requests refused with 429 by a rate limit, by budget (gateway_client, token_client, token_ip, auth_failures_ip)',
    labelNames: ['scope'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [scope, count] of Object.entries(throttle.refused)) this.inc({ scope }, count);
    },
  });
  new Counter({
    name: 'coregate_rate_limiter_failures_total',
    help: 'Rate-limit checks that failed (store unreachable or slow) and admitted their request without a limit (fail open)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(throttle.limiterFailures);
    },
  });
}
