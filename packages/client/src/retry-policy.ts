/**
 * When a failed request is tried again (CONTRACT §10): 429 and 503 after
 * `Retry-After` (the request was refused before anything happened, so even a POST
 * is safe to repeat); 502 and connection failures only for GET, because a POST that
 * reached the core may have done its work. Bounded by the retry count and by the
 * longest single wait the caller accepts.
 */

export interface RetryLimits {
  readonly maxRetries: number;
  readonly maxRetryWaitMs: number;
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff for answers that name no wait: 250 ms, 500 ms, 1 s, … */
function backoff(retry: number): number {
  return 250 * 2 ** retry;
}

/**
 * The wait before retry number `retry` (0-based), or undefined when the failure is
 * final: not retryable, out of retries, or asking for a longer wait than allowed.
 * `status` 0 stands for a request that got no answer.
 */
export function retryDelay(
  status: number,
  method: string,
  retryAfterMs: number | undefined,
  retry: number,
  limits: RetryLimits,
): number | undefined {
  if (retry >= limits.maxRetries) return undefined;
  let delay: number;
  if (status === 429 || status === 503) delay = retryAfterMs ?? backoff(retry);
  else if ((status === 502 || status === 0) && method === 'GET') delay = backoff(retry);
  else return undefined;
  return delay > limits.maxRetryWaitMs ? undefined : delay;
}
