/**
 * Every error coregate answers with: one type, {@link ApiError}, whose `code` comes from
 * a closed list, and one table ({@link ERROR_CODES}) from that code to what each form of
 * answer says — the gateway's FeathersJS envelope (name, className, status) and the
 * OAuth endpoints' `{error, error_description}`. The same code is the envelope's
 * `data.reason`, the `code` of the log line and the `reason` of the audit row
 * (docs/errors.md lists them for integrators).
 *
 * What the caller is told (`message`) is kept apart from the real cause (`detail`),
 * which is only ever logged. Each code has one constructor below.
 */

/** The envelope kinds of the gateway, each with its status (FeathersJS names). */
export const ENVELOPE_KINDS = {
  BadRequest: { status: 400, className: 'bad-request' },
  NotAuthenticated: { status: 401, className: 'not-authenticated' },
  Forbidden: { status: 403, className: 'forbidden' },
  NotFound: { status: 404, className: 'not-found' },
  MethodNotAllowed: { status: 405, className: 'method-not-allowed' },
  Conflict: { status: 409, className: 'conflict' },
  PayloadTooLarge: { status: 413, className: 'payload-too-large' },
  Unprocessable: { status: 422, className: 'unprocessable' },
  TooManyRequests: { status: 429, className: 'too-many-requests' },
  GeneralError: { status: 500, className: 'general-error' },
  NotImplemented: { status: 501, className: 'not-implemented' },
  BadGateway: { status: 502, className: 'bad-gateway' },
  Unavailable: { status: 503, className: 'unavailable' },
} as const;

export type EnvelopeName = keyof typeof ENVELOPE_KINDS;

/** Error codes of the token endpoint (RFC 6749 §5.2; docs/behaviour.md). */
type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  /** RFC 9449 §5: only ever answered to a request that sent a `DPoP` header. */
  | 'invalid_dpop_proof';

/**
 * What an OAuth endpoint answers for a code: one of RFC 6749 §5.2's codes with 400, or, for what
 * the token endpoint cannot refuse with them, `temporarily_unavailable` (RFC 6749 §4.1.2.1 names it
 * for the authorization endpoint; it says the same here) and `server_error`.
 */
interface OAuthAnswer {
  readonly error: OAuthErrorCode | 'temporarily_unavailable' | 'server_error';
  readonly status: 400 | 405 | 429 | 500 | 503;
}

interface ErrorKind {
  /** The envelope on the gateway; its status is the answer's. */
  readonly envelope: EnvelopeName;
  /**
   * The `data.reason` the caller is told, where it is told less than the code (the log
   * line and the audit row keep the code): absent, the code itself.
   */
  readonly told?: string;
  /** The answer of the OAuth endpoints. */
  readonly oauth: OAuthAnswer;
}

const OAUTH_INVALID_REQUEST: OAuthAnswer = { error: 'invalid_request', status: 400 };
const OAUTH_SERVER_ERROR: OAuthAnswer = { error: 'server_error', status: 500 };

/** The closed list of error codes and, for each, its answer in both forms. */
export const ERROR_CODES = {
  // The request itself, and the OAuth endpoints' own refusals (RFC 6749 §5.2).
  invalid_request: { envelope: 'BadRequest', oauth: OAUTH_INVALID_REQUEST },
  invalid_client: { envelope: 'BadRequest', oauth: { error: 'invalid_client', status: 400 } },
  invalid_grant: { envelope: 'BadRequest', oauth: { error: 'invalid_grant', status: 400 } },
  unauthorized_client: { envelope: 'BadRequest', oauth: { error: 'unauthorized_client', status: 400 } },
  unsupported_grant_type: { envelope: 'BadRequest', oauth: { error: 'unsupported_grant_type', status: 400 } },
  // The bearer check (RFC 6750 §3.1) and the caller's client.
  missing_token: { envelope: 'NotAuthenticated', oauth: OAUTH_INVALID_REQUEST },
  invalid_token: { envelope: 'NotAuthenticated', oauth: OAUTH_INVALID_REQUEST },
  // A disabled client's token is an invalid token to its holder; only the operator learns why.
  client_disabled: {
    envelope: 'NotAuthenticated',
    told: 'invalid_token',
    oauth: { error: 'invalid_client', status: 400 },
  },
  // A DPoP proof that does not hold (RFC 9449 §5 at the token endpoint, §7.1 at the gateway).
  invalid_dpop_proof: { envelope: 'NotAuthenticated', oauth: { error: 'invalid_dpop_proof', status: 400 } },
  insufficient_scope: { envelope: 'Forbidden', oauth: OAUTH_INVALID_REQUEST },
  // At the token endpoint the same refusal is an `invalid_client`, whose description names the address.
  ip_not_whitelisted: { envelope: 'Forbidden', oauth: { error: 'invalid_client', status: 400 } },
  // The platform's customers.
  customer_not_recognised: { envelope: 'NotAuthenticated', oauth: OAUTH_INVALID_REQUEST },
  reregistration_required: { envelope: 'NotAuthenticated', oauth: OAUTH_INVALID_REQUEST },
  customer_not_registered: { envelope: 'NotFound', oauth: OAUTH_INVALID_REQUEST },
  customer_id_taken: { envelope: 'Conflict', oauth: OAUTH_INVALID_REQUEST },
  // A page or sync cursor that is tampered with, malformed, made for another request or too old.
  invalid_cursor: { envelope: 'BadRequest', oauth: OAUTH_INVALID_REQUEST },
  // The HTTP edge.
  route_not_found: { envelope: 'NotFound', oauth: OAUTH_INVALID_REQUEST },
  method_not_allowed: { envelope: 'MethodNotAllowed', oauth: { error: 'invalid_request', status: 405 } },
  payload_too_large: { envelope: 'PayloadTooLarge', oauth: OAUTH_INVALID_REQUEST },
  // RFC 6749 has no code for a rate limit: `invalid_request` with the 429 (docs/behaviour.md#token-errors).
  rate_limited: { envelope: 'TooManyRequests', oauth: { error: 'invalid_request', status: 429 } },
  // Operator commands (the CLI shows the message): a named record that does not exist, or exists already.
  not_found: { envelope: 'NotFound', oauth: OAUTH_INVALID_REQUEST },
  already_exists: { envelope: 'Conflict', oauth: OAUTH_INVALID_REQUEST },
  // What fails behind the request.
  internal_error: { envelope: 'GeneralError', oauth: OAUTH_SERVER_ERROR },
  core_failed: { envelope: 'BadGateway', oauth: OAUTH_SERVER_ERROR },
  // The institution's core does not offer the call (transactions, docs/behaviour.md#transactions).
  not_supported_by_core: { envelope: 'NotImplemented', oauth: OAUTH_SERVER_ERROR },
  unavailable: { envelope: 'Unavailable', oauth: { error: 'temporarily_unavailable', status: 503 } },
  // A disabled institution's clients are told the service is unavailable; the operator learns which.
  institution_disabled: {
    envelope: 'Unavailable',
    told: 'unavailable',
    oauth: { error: 'invalid_client', status: 400 },
  },
} as const satisfies Readonly<Record<string, ErrorKind>>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldProblem {
  /** Where the problem is, as a JSON pointer-like path (`/registration/customerId`) or a query name. */
  readonly path: string;
  readonly message: string;
}

/** The client a token request named, when such a client exists (wrong secret, disabled). */
export interface KnownClient {
  readonly id: string;
  readonly platform: string;
  readonly institution?: string;
}

interface ApiErrorOptions {
  /** Details for the envelope's `data` (never `reason` or `requestId`: the error handler adds those). */
  readonly data?: Readonly<Record<string, unknown>>;
  /** Private cause, for the log only. */
  readonly detail?: string | undefined;
  /** Extra response headers, for example `WWW-Authenticate` or `Retry-After`. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * For the audit log, which must never store an unchecked, caller-supplied client_id:
   * the client a refused token request named, when it exists.
   */
  readonly knownClient?: KnownClient | undefined;
}

/** An error coregate answers with; rendered by `http/plugins/error-handler.ts` in the route's form. */
export class ApiError extends Error {
  /** The envelope's name (`NotFound`). */
  override readonly name: EnvelopeName;
  /** The envelope's status (the OAuth form's is {@link ApiError.oauth}'s). */
  readonly status: number;
  readonly className: string;
  /** What the caller is told as `data.reason`: the code, unless the table says less. */
  readonly reason: string;
  readonly oauth: OAuthAnswer;
  readonly data: Readonly<Record<string, unknown>>;
  readonly detail: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly knownClient: KnownClient | undefined;

  constructor(
    readonly code: ErrorCode,
    /** Public, safe to send: never a secret, never what the caller sent. */
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message);
    const kind: ErrorKind = ERROR_CODES[code];
    const envelope = ENVELOPE_KINDS[kind.envelope];
    this.name = kind.envelope;
    this.status = envelope.status;
    this.className = envelope.className;
    this.reason = kind.told ?? code;
    this.oauth = kind.oauth;
    this.data = options.data ?? {};
    this.detail = options.detail;
    this.headers = options.headers ?? {};
    this.knownClient = options.knownClient;
  }
}

/**
 * The one `error_description` of every `invalid_client`, whatever the client and the cause (a
 * wrong secret, an unknown client, a method the client was not registered with, an expired
 * assertion, a missing certificate, an address outside the allow-list): a caller learns neither
 * whether a client exists nor how it authenticates. It names the methods coregate accepts, so
 * that a library sending the secret in the form body learns what to send instead. The precise
 * cause is the error's `detail`: logged, never sent (docs/behaviour.md#token-errors).
 */
export const CLIENT_AUTHENTICATION_FAILED =
  'client authentication failed: use the method the client was registered with (client_secret_basic, private_key_jwt, tls_client_auth, self_signed_tls_client_auth)';

// --- One constructor per code ---

/** 400 `invalid_request`: the envelope's `data.errors` names each bad field; the OAuth form says `message`. */
export function invalidRequest(
  message: string,
  options: { problems?: readonly FieldProblem[]; detail?: string } = {},
): ApiError {
  return new ApiError('invalid_request', message, { data: { errors: options.problems ?? [] }, detail: options.detail });
}

/** `detail`: the precise cause, for the log line (never a secret or an assertion). */
export function invalidClient(detail?: string, options: { knownClient?: KnownClient } = {}): ApiError {
  return new ApiError('invalid_client', CLIENT_AUTHENTICATION_FAILED, { detail, knownClient: options.knownClient });
}

export function invalidGrant(description: string, detail?: string): ApiError {
  return new ApiError('invalid_grant', description, { detail });
}

export function unauthorizedClient(description: string): ApiError {
  return new ApiError('unauthorized_client', description);
}

export function unsupportedGrantType(description: string): ApiError {
  return new ApiError('unsupported_grant_type', description);
}

/**
 * A `DPoP` proof that is missing where the token needs one, malformed, or does not match the
 * request or the token (RFC 9449 §5, §7.1); `headers` carries the gateway's `DPoP` challenge.
 */
export function invalidDpopProof(
  detail: string,
  headers: Readonly<Record<string, string>> = {},
  description = 'invalid DPoP proof',
): ApiError {
  return new ApiError('invalid_dpop_proof', description, { detail, headers });
}

/** No bearer token at all: the challenge without an error code (RFC 6750 §3.1). */
export function missingToken(): ApiError {
  return new ApiError('missing_token', 'a bearer access token is required', {
    headers: { 'www-authenticate': 'Bearer' },
  });
}

const INVALID_TOKEN_CHALLENGE = { 'www-authenticate': 'Bearer error="invalid_token"' };

/** `scheme` is the one the token came with: a DPoP-bound token is challenged as `DPoP` (RFC 9449 §7.1). */
export function invalidToken(detail: string, scheme: 'Bearer' | 'DPoP' = 'Bearer'): ApiError {
  const headers = scheme === 'Bearer' ? INVALID_TOKEN_CHALLENGE : { 'www-authenticate': 'DPoP error="invalid_token"' };
  return new ApiError('invalid_token', 'invalid or expired access token', { detail, headers });
}

/**
 * A token issued for another audience (RFC 9068 §4: `aud` does not name this gateway): its
 * holder is told so, and which audience the gateway takes, in the message and the challenge's
 * `error_description` (RFC 6750 §3) — a token meant for another resource server is a mistake to
 * fix, not an expired one to renew. The gateway's audience is no secret; the token is not echoed.
 */
export function tokenForAnotherAudience(expectedAudience: string, scheme: 'Bearer' | 'DPoP'): ApiError {
  const description = `the access token was issued for another audience: this gateway accepts tokens whose aud is ${expectedAudience}`;
  return new ApiError('invalid_token', description, {
    detail: 'aud is not this gateway',
    headers: { 'www-authenticate': `${scheme} error="invalid_token", error_description="${description}"` },
  });
}

/**
 * A sender-constrained token presented without what binds it: unlike any other invalid token, the
 * holder is told why and how to present it (RFC 9449 §7.1, RFC 8705 §3), in the message and in
 * the challenge's `error_description` (RFC 6750 §3). It tells nothing the holder of the token
 * cannot read in its `cnf` claim.
 */
export function boundTokenWithoutProof(binding: 'dpop' | 'certificate', scheme: 'Bearer' | 'DPoP'): ApiError {
  const [detail, description] =
    binding === 'dpop'
      ? [
          'a DPoP-bound token sent as Bearer',
          'the access token is DPoP-bound: send it as Authorization: DPoP <token> with a DPoP proof header (RFC 9449)',
        ]
      : [
          'a certificate-bound token without that certificate',
          'the access token is bound to a client certificate: send it over mutual TLS with the certificate it was issued to (RFC 8705)',
        ];
  const challenge = binding === 'dpop' ? 'DPoP' : scheme;
  return new ApiError('invalid_token', description, {
    detail,
    headers: { 'www-authenticate': `${challenge} error="invalid_token", error_description="${description}"` },
  });
}

/** The token of a disabled client: answered as {@link invalidToken}, audited as `client_disabled`. */
export function clientDisabled(clientId: string): ApiError {
  return new ApiError('client_disabled', 'invalid or expired access token', {
    detail: `client ${clientId} is disabled`,
    headers: INVALID_TOKEN_CHALLENGE,
  });
}

export function insufficientScope(scope: string): ApiError {
  return new ApiError('insufficient_scope', `the access token lacks the ${scope} scope`, {
    headers: { 'www-authenticate': 'Bearer error="insufficient_scope"' },
  });
}

/** A caller outside its client's IP allow-list: the gateway's 403 says the address (the caller's own). */
export function ipNotWhitelisted(ip: string): ApiError {
  return new ApiError('ip_not_whitelisted', `the caller IP address ${ip} is not whitelisted for this client`, {
    data: { ip },
    detail: `caller ${ip}`,
  });
}

/** The token endpoint's form of {@link ipNotWhitelisted}: an `invalid_client` like any other; the detail names the address. */
export function tokenCallerNotWhitelisted(ip: string, client: KnownClient): ApiError {
  return new ApiError(
    'ip_not_whitelisted',
    // The same text as every other refusal of client authentication: the address is in the log and the audit row.
    CLIENT_AUTHENTICATION_FAILED,
    {
      detail: `caller ${ip} outside the allow-list of ${client.id}`,
      knownClient: client,
    },
  );
}

/** Registration: the core does not know the customer (no `WWW-Authenticate`: not a bearer problem). */
export function customerNotRecognised(): ApiError {
  return new ApiError('customer_not_recognised', 'the core banking system does not recognise this customer');
}

/** The stored customer key no longer works at the core: only a new registration helps. */
export function reregistrationRequired(): ApiError {
  return new ApiError('reregistration_required', 'the customer must be registered again');
}

/** A customerId the caller's platform did not register: the same answer for another platform's (no existence leak). */
export function customerNotRegistered(): ApiError {
  return new ApiError('customer_not_registered', 'no registered customer with this customerId');
}

export function customerIdTaken(customerId: string): ApiError {
  return new ApiError('customer_id_taken', 'this customerId is already registered for another core customer', {
    data: { customerId },
  });
}

/**
 * A page or sync cursor that cannot be used here: tampered with, malformed, made for another
 * platform, customer, account or filters, or older than the kept sync state. Which one is
 * the `detail`, logged only: a caller learns nothing about other platforms' cursors.
 */
export function invalidCursor(detail: string): ApiError {
  return new ApiError('invalid_cursor', 'the cursor cannot be used with this request; start again without one', {
    data: { errors: [{ path: '/cursor', message: 'is not a cursor of this request' }] },
    detail,
  });
}

/** The institution's core does not offer what was asked (501): nothing was done. */
export function notSupportedByCore(detail: string): ApiError {
  return new ApiError('not_supported_by_core', "the institution's core banking system does not offer this", {
    detail,
  });
}

/** The path is not echoed: a caller may have put personal data in it. */
export function routeNotFound(): ApiError {
  return new ApiError('route_not_found', 'no such resource');
}

export function methodNotAllowed(allow: string): ApiError {
  return new ApiError('method_not_allowed', `use ${allow}`, { headers: { allow } });
}

export function payloadTooLarge(): ApiError {
  return new ApiError('payload_too_large', 'request body is too large');
}

export function rateLimited(
  retryAfterSeconds: number,
  headers: Readonly<Record<string, string>>,
  detail: string,
): ApiError {
  return new ApiError('rate_limited', 'too many requests, retry later', {
    data: { retryAfter: retryAfterSeconds },
    detail,
    headers,
  });
}

/** An operator command named a record that does not exist (the message names it). */
export function notFound(message: string): ApiError {
  return new ApiError('not_found', message);
}

/** An operator command would create a record that exists already. */
export function alreadyExists(message: string): ApiError {
  return new ApiError('already_exists', message);
}

/** Anything unexpected: nothing about it is told. */
export function internalError(): ApiError {
  return new ApiError('internal_error', 'internal error');
}

/** The core unreachable, timing out, failing or answering garbage; the cause is logged only. */
export function coreFailed(detail: string): ApiError {
  return new ApiError('core_failed', 'the core banking system did not answer properly', { detail });
}

/** 503: the service cannot serve now; `retryAfterSeconds` becomes `Retry-After`. */
export function unavailable(message: string, detail: string, retryAfterSeconds?: number): ApiError {
  return new ApiError('unavailable', message, {
    detail,
    ...(retryAfterSeconds === undefined ? {} : { headers: { 'retry-after': String(retryAfterSeconds) } }),
  });
}

/** The caller's institution is disabled: 503 on every `/core/*` call of its clients. */
export function institutionDisabled(institution: string): ApiError {
  return new ApiError('institution_disabled', 'the institution is not available', {
    detail: `institution ${institution} is disabled`,
  });
}
