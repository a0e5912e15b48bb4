/** The rate limits (docs/behaviour.md#rate-limits) and their store. */
import { RequestThrottle } from '../../app/request-throttle.js';
import type { PrometheusMetrics } from '../../adapters/metrics/prometheus.js';
import { createRateLimiter, limiterErrorLog } from '../../adapters/rate-limit/create-rate-limiter.js';
import { registerRateLimitMetrics } from '../../adapters/rate-limit/rate-limit-metrics.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { Basics } from './basics.js';

export interface RateLimits {
  /** The store: Redis with COREGATE_REDIS_URL, else this process's memory. */
  readonly rateLimiter: RateLimiter;
  /** The budgets of the gateway and the token endpoints, on {@link rateLimiter}. */
  readonly throttle: RequestThrottle;
}

/** The throttle opens its store, which reports each failed Redis call to it (counted and logged). */
export function buildRateLimits(
  { config, logger, clock }: Basics,
  { metrics }: { readonly metrics: PrometheusMetrics },
): RateLimits {
  const throttle = new RequestThrottle(
    (onStoreFailure) => createRateLimiter(config, clock, logger, { onStoreFailure, registry: metrics.registry }),
    config.rateLimits,
    limiterErrorLog(logger, clock),
  );
  registerRateLimitMetrics(metrics.registry, throttle);
  return { rateLimiter: throttle.limiter, throttle };
}
