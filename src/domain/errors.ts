/**
 * Every error coregate answers with, one class each. What the caller is told
 * (`message`, `description`) is kept apart from the real cause (`detail`), which
 * is only ever logged.
 */

/** Error codes of the token endpoint (spec §7.1, RFC 6749 §5.2). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  /** RFC 9449 §5: only ever answered to a request that sent a `DPoP` header. */
  | 'invalid_dpop_proof';

/** An error of the OAuth endpoints, rendered as `400 {"error": code, "error_description": ...}`. */
export abstract class OAuthError extends Error {
  abstract readonly error: OAuthErrorCode;
  readonly status = 400;
  constructor(
    /** Public, safe to send: never contains a secret or what the caller sent. */
    readonly description: string,
    /** Private cause, for the log only. */
    readonly detail?: string,
  ) {
    super(description);
  }
}

export class InvalidRequest extends OAuthError {
  readonly error = 'invalid_request';
}
/** A `DPoP` header at the token endpoint that is not a valid proof (RFC 9449 §5). */
export class InvalidDpopProof extends OAuthError {
  readonly error = 'invalid_dpop_proof';
}
export class InvalidClient extends OAuthError {
  readonly error = 'invalid_client';
  constructor(
    detail?: string,
    /**
     * The client the request named, when such a client exists (wrong secret, disabled):
     * for the audit log, which must never store an unchecked, caller-supplied client_id.
     */
    readonly knownClient?: { readonly id: string; readonly platform: string; readonly institution?: string },
    options: { description?: string; auditReason?: string } = {},
  ) {
    // One public message for every cause of a wrong credential, so a caller cannot probe which
    // part was wrong; only a cause the caller cannot probe with (no Basic header, its address) says more.
    super(options.description ?? 'client authentication failed', detail);
    this.auditReason = options.auditReason;
  }
  /** A finer reason for the audit row than the code (`ip_not_whitelisted`). */
  readonly auditReason: string | undefined;
}

/** The `error_description` when a request carries no HTTP Basic credentials at all. */
export const USE_CLIENT_SECRET_BASIC =
  'client authentication failed: send client_id and client_secret with HTTP Basic (client_secret_basic); credentials in the form body are not accepted';

/** The reason code of a gateway error that names no finer one, by status. */
export const DEFAULT_REASONS: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'not_authenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'core_failed',
  503: 'unavailable',
};
export class InvalidGrant extends OAuthError {
  readonly error = 'invalid_grant';
}
export class UnauthorizedClient extends OAuthError {
  readonly error = 'unauthorized_client';
}
export class UnsupportedGrantType extends OAuthError {
  readonly error = 'unsupported_grant_type';
}

/**
 * An error of the gateway (`/core/*` and everything that is not OAuth), rendered as
 * the FeathersJS envelope `{name, className, message, code, data}` (CONTRACT §3).
 */
export abstract class GatewayError extends Error {
  abstract readonly status: number;
  abstract readonly className: string;
  /** Extra response headers, for example `WWW-Authenticate` or `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    message: string,
    readonly data: Readonly<Record<string, unknown>> = {},
    options: { detail?: string; headers?: Record<string, string>; reason?: string } = {},
  ) {
    super(message);
    this.detail = options.detail;
    this.headers = options.headers ?? {};
    this.reason = options.reason;
  }
  /**
   * The reason code a program may branch on, answered as `data.reason` when `data` names
   * none (`customer_not_registered`, `route_not_found`). Kept apart from `data.reason` so
   * that the audit log's coarser reason codes stay as they are.
   */
  readonly reason: string | undefined;
  /** Private cause, for the log only. */
  readonly detail: string | undefined;
}

export interface FieldProblem {
  /** Where the problem is, as a JSON pointer-like path (`/registration/customerId`) or a query name. */
  readonly path: string;
  readonly message: string;
}

export class BadRequest extends GatewayError {
  override readonly name = 'BadRequest';
  readonly status = 400;
  readonly className = 'bad-request';
  constructor(message: string, errors: readonly FieldProblem[] = [], options?: { detail?: string }) {
    super(message, { errors }, options);
  }
}
export class NotAuthenticated extends GatewayError {
  override readonly name = 'NotAuthenticated';
  readonly status = 401;
  readonly className = 'not-authenticated';
}
export class Forbidden extends GatewayError {
  override readonly name = 'Forbidden';
  readonly status = 403;
  readonly className = 'forbidden';
}
export class NotFound extends GatewayError {
  override readonly name = 'NotFound';
  readonly status = 404;
  readonly className = 'not-found';
}
export class MethodNotAllowed extends GatewayError {
  override readonly name = 'MethodNotAllowed';
  readonly status = 405;
  readonly className = 'method-not-allowed';
}
export class Conflict extends GatewayError {
  override readonly name = 'Conflict';
  readonly status = 409;
  readonly className = 'conflict';
}
export class PayloadTooLarge extends GatewayError {
  override readonly name = 'PayloadTooLarge';
  readonly status = 413;
  readonly className = 'payload-too-large';
}
export class TooManyRequests extends GatewayError {
  override readonly name = 'TooManyRequests';
  readonly status = 429;
  readonly className = 'too-many-requests';
}
export class GeneralError extends GatewayError {
  override readonly name = 'GeneralError';
  readonly status = 500;
  readonly className = 'general-error';
}
export class BadGateway extends GatewayError {
  override readonly name = 'BadGateway';
  readonly status = 502;
  readonly className = 'bad-gateway';
}
export class Unavailable extends GatewayError {
  override readonly name = 'Unavailable';
  readonly status = 503;
  readonly className = 'unavailable';
}
