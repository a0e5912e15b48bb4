/**
 * The audit log (docs/behaviour.md#audit-log): an append-only record of who did what to which
 * customer, when, with what outcome. It holds identifiers only — never personal
 * data (SSN, account number, birth date) and never a secret (tokens, client
 * secrets, delegate reference IDs). The application only ever appends; the
 * database refuses UPDATE, DELETE and TRUNCATE on the table.
 */

/** Every kind of event written to the audit log. */
export const AUDIT_EVENT_TYPES = [
  /** `POST /oauth2/token` answered with tokens. */
  'token.issued',
  /** `POST /oauth2/token` refused; `reason` is the OAuth error code answered. */
  'token.denied',
  /** The bearer check of a gateway route refused the request (401/403). */
  'access.denied',
  /** `POST /core/sessions`, successful or not. */
  'session.registered',
  /** coregate started a new core session for a stored association (expiry or rejection). */
  'session.renewed',
  /** The core no longer knows the stored customer key: the customerId must be registered again. */
  'session.reregistration_required',
  /** An operator deleted an association (`coregate sessions revoke`). */
  'session.revoked',
  /** `GET /core/accounts`, successful or not. */
  'accounts.listed',
  /** `GET /core/transactions`, successful or not (never an amount or a description). */
  'transactions.listed',
  /** `GET /core/transactions/sync`, successful or not. */
  'transactions.synced',
  /** `GET /core/sessions`: a platform read its customer's state, successful or not. */
  'session.read',
  /** `DELETE /core/sessions`: a platform deregistered its customer, successful or not. */
  'session.deregistered',
  // Operator commands: actor `operator`, the client (or, for keys, the kid in `reason`) as target, never a secret.
  'client.created',
  'client.updated',
  'client.deleted',
  'client.disabled',
  'client.enabled',
  'client.secret_rotated',
  'key.rotated',
  'key.revoked',
  // Operator commands on banks and webhook receivers: the institution, or the platform with the endpoint id in `reason`.
  'institution.added',
  'institution.updated',
  'institution.disabled',
  'institution.enabled',
  'webhook.added',
  'webhook.removed',
  'webhook.secret_rotated',
  'webhook.enabled',
  /** By the operator (actor `operator`), or because the receiver answered 410 Gone (actor `client`: coregate acting on the platform's answer). */
  'webhook.disabled',
  /** An operator sent a failed delivery again (`webhooks retry`; the delivery id in `reason`). */
  'webhook.delivery_retried',
  // The operator console (docs/operations.md#console): a sign-in link made, and opened.
  'console.link_created',
  'console.signed_in',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export type AuditOutcome = 'success' | 'failure';

/**
 * `client`: a platform client's request (or coregate acting for it); `operator`: the CLI;
 * `operator:NAME`: an operator signed in to the console (docs/operations.md#console).
 */
export type AuditActor = 'client' | 'operator' | `operator:${string}`;

export interface AuditEvent {
  readonly type: AuditEventType;
  readonly outcome: AuditOutcome;
  /** A short code saying why, for failures (`invalid_client`, `not_found`, …); `null` for successes. */
  readonly reason: string | null;
  readonly actor: AuditActor;
  /** The authenticated (or at least existing) client; `null` when unknown — a caller-supplied id is never stored unchecked. */
  readonly clientId: string | null;
  readonly platform: string | null;
  /** The institution (bank) the event concerns, if known (docs/behaviour.md#institution-isolation); absent or `null` when none. */
  readonly institution?: string | null;
  /** The platform's customer ID the event concerns, if any. */
  readonly customerId: string | null;
  /** The HTTP request (`X-Request-Id`) the event belongs to; `null` for operator commands and aggregated rows. */
  readonly requestId: string | null;
  /**
   * Aggregated rows only (refusals before authentication, see `app/refusal-aggregator.ts`):
   * how many refusals of this type and reason came from {@link sourceIp} in the minute
   * starting at `occurredAt`. Absent or `null` on a row of one request.
   */
  readonly count?: number | null;
  /** Aggregated rows only: the address the refusals came from (`null` on the overflow row). */
  readonly sourceIp?: string | null;
  readonly occurredAt: Date;
}

/** An event as stored, with its position in the log. */
export interface AuditRecord extends AuditEvent {
  /** Increasing with every append (a bigint, as text). */
  readonly id: string;
}

export interface AuditQuery {
  readonly platform?: string | undefined;
  readonly customerId?: string | undefined;
  /** Only events that occurred at or after this instant. */
  readonly since?: Date | undefined;
  /** Only events that occurred before this instant. */
  readonly until?: Date | undefined;
  /** Only events of this type. */
  readonly type?: AuditEventType | undefined;
  /** Only events by this actor (`operator`, `operator:alice`, `client`). */
  readonly actor?: string | undefined;
  /** The next page: only events listed after the event with this id (newest first). */
  readonly before?: string | undefined;
  readonly limit: number;
}

export interface AuditLog {
  /** Appends one event; resolves once it is stored. */
  record(event: AuditEvent): Promise<void>;
  /** Matching events, newest first, at most `limit`. */
  list(query: AuditQuery): Promise<AuditRecord[]>;
}
