/**
 * Persistence of webhook endpoints and of the outbox of their deliveries
 * (docs/behaviour.md#webhook-management). Secrets are stored sealed; the store seals and opens them
 * through its `SecretSealer`, so callers see them in clear, in memory only.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** An endpoint as the operator sees it: never its secret. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly platform: string;
  readonly url: string;
  /** Event types sent there; empty = every type. */
  readonly events: readonly string[];
  readonly enabled: boolean;
  /** Why it was disabled (`gone`: the receiver answered 410). */
  readonly disabledReason: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface NewWebhookEndpoint {
  readonly id: string;
  readonly platform: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly secret: string;
}

/** A delivery the dispatcher holds the lease of: everything needed to send it. */
export interface ClaimedDelivery {
  readonly id: string;
  /** The event id: `webhook-id`, the same on every attempt. */
  readonly eventId: string;
  readonly eventType: string;
  readonly endpointId: string;
  /** The endpoint's platform. */
  readonly platform: string;
  readonly url: string;
  /** The exact body, as recorded with the change. */
  readonly body: string;
  /** The current secret, and the previous one while a rotation's grace period lasts. */
  readonly secrets: readonly string[];
  /** Attempts made before this one. */
  readonly attempts: number;
}

/** What became of one attempt. */
export type AttemptOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'retry'; readonly status: number | null; readonly error: string; readonly nextAttemptAt: Date }
  | { readonly kind: 'failed'; readonly status: number | null; readonly error: string }
  /** 410 Gone: the delivery fails and the endpoint is disabled. */
  | { readonly kind: 'gone'; readonly status: 410; readonly error: string };

export interface DeliveryView {
  readonly id: string;
  readonly eventType: string;
  readonly endpointId: string;
  readonly url: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastStatus: number | null;
  /** Why the last attempt failed (`the receiver answered 500`, `no answer within 10 s`, a policy refusal); `null` once delivered. */
  readonly lastError: string | null;
  readonly nextAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
}

export interface QueueStats {
  /** Deliveries still pending. */
  readonly pending: number;
  /** Age of the oldest pending delivery, in seconds; 0 when none. */
  readonly oldestPendingSeconds: number;
}

/** Keeps one endpoint from taking every slot: at most `perEndpoint` attempts each, counting those already `busy`. */
export interface ClaimFairness {
  readonly perEndpoint: number;
  /** Attempts this process has under way, per endpoint id. */
  readonly busy: ReadonlyMap<string, number>;
}

export interface WebhookStore {
  addEndpoint(endpoint: NewWebhookEndpoint, now: Date): Promise<WebhookEndpoint>;
  listEndpoints(platform: string): Promise<WebhookEndpoint[]>;
  findEndpoint(id: string): Promise<WebhookEndpoint | undefined>;
  /** Removes the endpoint and its deliveries; true when there was one. */
  removeEndpoint(id: string): Promise<boolean>;
  /**
   * Enables or disables the endpoint; undefined for an unknown id. Enabling clears why it was
   * disabled; disabling fails its pending deliveries (none will be sent) with `reason`.
   */
  setEnabled(id: string, enabled: boolean, now: Date, reason?: string): Promise<WebhookEndpoint | undefined>;
  /** Replaces the secret, keeping the old one until `previousUntil`; undefined for an unknown id. */
  rotateSecret(id: string, secret: string, now: Date, previousUntil: Date): Promise<WebhookEndpoint | undefined>;

  /**
   * Leases up to `limit` due pending deliveries until `leaseUntil` (`FOR UPDATE SKIP
   * LOCKED`): among all processes sharing the database, one holds each at a time.
   */
  claimDue(
    owner: string,
    now: Date,
    leaseUntil: Date,
    limit: number,
    fairness?: ClaimFairness,
  ): Promise<ClaimedDelivery[]>;
  /** Records an attempt of a delivery this owner holds, and releases the lease; false when the lease had passed to another. */
  recordAttempt(id: string, owner: string, outcome: AttemptOutcome, now: Date): Promise<boolean>;
  /**
   * Puts a failed delivery to an enabled endpoint back in the queue, due at `now`, its attempts
   * counting on; false when there is no such delivery (unknown, pending, delivered, or its
   * endpoint disabled).
   */
  retryDelivery(id: string, now: Date): Promise<boolean>;
  /** A platform's deliveries, newest first. */
  listDeliveries(platform: string, limit: number): Promise<DeliveryView[]>;
  queueStats(now: Date): Promise<QueueStats>;
  /**
   * Deletes up to `limit` delivered or failed deliveries recorded before `before`, then up to
   * `limit` events recorded before it that have no delivery left. Pending deliveries, and the
   * events they belong to, are never deleted. Returns how many rows were deleted.
   */
  pruneSettled(before: Date, limit: number): Promise<number>;
}
