/**
 * Who may send how many requests (429 TooManyRequests, docs/behaviour.md#rate-limits):
 *
 * - the gateway (`/core/*`): per client, after bearer authentication;
 * - the token endpoints (`/oauth2/token`, `/oauth2/revoke`): per source address
 *   before client authentication, per client after it;
 * - brute-force protection: failed client authentications are counted per source
 *   address; once that stricter budget is spent, the address's requests are
 *   refused before any secret is checked, and admitted again at the budget's pace;
 * - the gateway's refusals before authentication (no bearer token, an invalid one)
 *   are counted per source address the same way: once that budget is spent, the
 *   address gets 429 before any token is verified, so a flood of junk tokens costs
 *   neither signature checks nor audit rows.
 *
 * IPv6 sources count per /64 (one subscriber's prefix), so rotating addresses
 * inside it does not reset the budget. A limit of 0 turns that budget off.
 *
 * When the store fails (Redis down), requests are admitted — an outage of the
 * limiter must not take the API down — and the failure is reported
 * (`onLimiterError`, `limiterFailures`). The Redis store answers from process
 * memory while Redis fails (its breaker), and reports each failed call through
 * {@link RequestThrottle.recordStoreFailure}.
 *
 * Why not `@fastify/rate-limit`: it counts requests in fixed windows keyed before the
 * handler, while these budgets need (a) a key known only after authentication (the
 * client of a bearer token or of Basic credentials), (b) a budget of *failed
 * authentications* that is charged only when a secret turns out wrong and checked
 * before any secret is compared, and (c) smooth GCRA buckets (a fixed window lets
 * twice the budget through across a window edge — the brute-force budget must not).
 * The stores stay small (an in-memory map, one Redis Lua script) and are tested
 * against a real Redis like the plugin's own `RedisStore`.
 */
import ipaddr from 'ipaddr.js';
import { rateLimited } from '../domain/errors.js';
import type { RateLimitDecision } from '../domain/rate-limit.js';
import type { RateLimiter } from '../ports/rate-limiter.js';

export interface RateLimitSettings {
  /** `/core/*` requests per client per minute. */
  readonly gatewayPerClientPerMinute: number;
  /** Token endpoint requests per authenticated client per minute. */
  readonly tokenPerClientPerMinute: number;
  /** Token endpoint requests per source address per minute, before authentication. */
  readonly tokenPerIpPerMinute: number;
  /** Failed client authentications allowed per source address per `authFailureWindowSeconds`. */
  readonly authFailuresPerIp: number;
  readonly authFailureWindowSeconds: number;
  /** `/core/*` requests refused for a missing or invalid bearer token, per source address per minute. */
  readonly bearerFailuresPerIpPerMinute: number;
}

const MINUTE = 60;

/** Which budget refused a request (for metrics). */
export type RateLimitScope = 'gateway_client' | 'token_client' | 'token_ip' | 'auth_failures_ip' | 'bearer_failures_ip';

/**
 * What a caller may still send, for the `RateLimit-Limit/Remaining/Reset` headers (IETF draft
 * "RateLimit header fields for HTTP"): `resetSeconds` is how long until the budget is full again.
 */
export interface RateLimitQuota {
  readonly limit: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/** The draft's header fields for a quota. */
export function rateLimitHeaders(quota: RateLimitQuota): Record<string, string> {
  return {
    'ratelimit-limit': String(quota.limit),
    'ratelimit-remaining': String(quota.remaining),
    'ratelimit-reset': String(quota.resetSeconds),
  };
}

function quotaOf(decision: RateLimitDecision, limit: number, windowSeconds: number): RateLimitQuota {
  // The bucket refills one request every window/limit seconds (domain/rate-limit.ts).
  const resetSeconds = decision.allowed
    ? Math.ceil(((limit - decision.remaining) * windowSeconds) / limit)
    : decision.retryAfterSeconds;
  return { limit, remaining: decision.remaining, resetSeconds };
}

const ADMITTED: RateLimitDecision = Object.freeze({ allowed: true, remaining: 0, retryAfterSeconds: 0 });

/** A dotted-quad IPv4 address as ipaddr.js prints it: no leading zeros (which it would read as octal). */
const CANONICAL_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** The address a budget is kept for: IPv4 as is (IPv4-mapped IPv6 unmapped), IPv6 by its /64. */
export function sourceKey(ip: string): string {
  // How node gives an IPv4 peer, and already its own key: parsing it (ipaddr.js) on every budget
  // of the token endpoint and the gateway's bearer check showed in a token request's profile.
  if (CANONICAL_IPV4.test(ip)) return ip;
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

/** Opens a rate-limit store that reports its failed calls to `onStoreFailure` (the Redis store's breaker). */
export type OpenRateLimitStore = (onStoreFailure: (error: unknown) => void) => RateLimiter;

export class RequestThrottle {
  /** Limiter calls that failed (and admitted their request) since start. */
  limiterFailures = 0;
  /** Requests refused since start, by the budget that refused them. */
  readonly refused: Record<RateLimitScope, number> = {
    gateway_client: 0,
    token_client: 0,
    token_ip: 0,
    auth_failures_ip: 0,
    bearer_failures_ip: 0,
  };

  /** The store the budgets are counted in. */
  readonly limiter: RateLimiter;

  /**
   * @param store - the store, or a function that opens it given where to report each
   *   failed call of a shared store answered another way ({@link recordStoreFailure})
   */
  constructor(
    store: RateLimiter | OpenRateLimitStore,
    readonly settings: RateLimitSettings,
    private readonly onLimiterError: (error: unknown) => void = () => {},
  ) {
    this.limiter = typeof store === 'function' ? store((error) => this.recordStoreFailure(error)) : store;
  }

  /** A `/core/*` request of an authenticated client; the quota left, when there is a budget. */
  async admitGatewayRequest(clientId: string): Promise<RateLimitQuota | undefined> {
    const limit = this.settings.gatewayPerClientPerMinute;
    if (limit <= 0) return undefined;
    return this.refuseUnless(await this.hit(`gw:client:${clientId}`, limit, MINUTE), 'gateway_client', limit);
  }

  /** A `/core/*` request from `ip`, before its bearer token is looked at: refused while the address has spent its refusal budget. */
  async admitGatewayCaller(ip: string): Promise<void> {
    const limit = this.settings.bearerFailuresPerIpPerMinute;
    if (limit > 0)
      this.refuseUnless(await this.peek(`bearer-fail:ip:${sourceKey(ip)}`, limit, MINUTE), 'bearer_failures_ip');
  }

  /** A `/core/*` request from `ip` refused for a missing or invalid bearer token. */
  async recordBearerFailure(ip: string): Promise<void> {
    const limit = this.settings.bearerFailuresPerIpPerMinute;
    if (limit > 0) await this.hit(`bearer-fail:ip:${sourceKey(ip)}`, limit, MINUTE);
  }

  /**
   * A token endpoint request from `ip`, before its credentials are looked at:
   * refused while the address has spent its failure budget, or its request budget.
   */
  async admitTokenRequest(ip: string): Promise<void> {
    const source = sourceKey(ip);
    const { authFailuresPerIp: failures, authFailureWindowSeconds: window, tokenPerIpPerMinute: perIp } = this.settings;
    if (failures > 0)
      this.refuseUnless(await this.peek(`auth-fail:ip:${source}`, failures, window), 'auth_failures_ip');
    if (perIp > 0) this.refuseUnless(await this.hit(`token:ip:${source}`, perIp, MINUTE), 'token_ip');
  }

  /** A failed client authentication from `ip`. */
  async recordAuthenticationFailure(ip: string): Promise<void> {
    const failures = this.settings.authFailuresPerIp;
    if (failures > 0) await this.hit(`auth-fail:ip:${sourceKey(ip)}`, failures, this.settings.authFailureWindowSeconds);
  }

  /** A token endpoint request of an authenticated client; the quota left, when there is a budget. */
  async admitClientTokenRequest(clientId: string): Promise<RateLimitQuota | undefined> {
    const limit = this.settings.tokenPerClientPerMinute;
    if (limit <= 0) return undefined;
    return this.refuseUnless(await this.hit(`token:client:${clientId}`, limit, MINUTE), 'token_client', limit);
  }

  /** A call of the shared store that failed and was answered another way (counted and logged like a failure). */
  recordStoreFailure(error: unknown): void {
    this.limiterFailures += 1;
    this.onLimiterError(error);
  }

  private hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.limiter.hit(key, limit, windowSeconds).catch((error: unknown) => this.failOpen(error));
  }

  private peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.limiter.peek(key, limit, windowSeconds).catch((error: unknown) => this.failOpen(error));
  }

  private refuseUnless(
    decision: RateLimitDecision,
    scope: RateLimitScope,
    limit = 0,
    windowSeconds = MINUTE,
  ): RateLimitQuota {
    const quota = quotaOf(decision, limit, windowSeconds);
    if (decision.allowed) return quota;
    this.refused[scope] += 1;
    const retryAfter = decision.retryAfterSeconds;
    const headers = { 'retry-after': String(retryAfter), ...(limit > 0 ? rateLimitHeaders(quota) : {}) };
    throw rateLimited(retryAfter, headers, REFUSAL_DETAIL[scope]);
  }

  private failOpen(error: unknown): RateLimitDecision {
    this.limiterFailures += 1;
    this.onLimiterError(error);
    return ADMITTED;
  }
}

const REFUSAL_DETAIL: Record<RateLimitScope, string> = {
  gateway_client: 'too many gateway requests for this client',
  token_client: 'too many token requests for this client',
  token_ip: 'too many token requests from this address',
  auth_failures_ip: 'too many failed client authentications from this address',
  bearer_failures_ip: 'too many requests without a valid access token from this address',
};
