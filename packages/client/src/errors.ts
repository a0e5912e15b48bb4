/**
 * Every failure the client reports is a `CoregateError`: the gateway's error
 * envelope (CONTRACT §3) field by field, or the token endpoint's OAuth error
 * (`status` 400 and the code in `error`, e.g. `invalid_client`).
 */

/** What the client knows about a failure; `status` 0 when no HTTP answer arrived. */
export interface CoregateErrorInit {
  readonly status: number;
  readonly name: string;
  readonly className: string;
  readonly message: string;
  readonly data?: Record<string, unknown>;
  /** The token endpoint's OAuth error code (RFC 6749 §5.2). */
  readonly error?: string;
  readonly errorDescription?: string;
  /** Seconds from the `Retry-After` header, when the server sent one. */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

/**
 * A failed call. For `/core/*` the fields are those of the envelope
 * (`{name, className, message, code, data}`); for the token endpoint `error` holds the
 * OAuth code. Requests that got no answer have `status` 0 and name `Timeout` or
 * `NetworkError`. Never carries the client secret or an access token.
 */
export class CoregateError extends Error {
  readonly status: number;
  override readonly name: string;
  readonly className: string;
  readonly data: Record<string, unknown>;
  readonly error: string | undefined;
  readonly errorDescription: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(init: CoregateErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.name = init.name;
    this.className = init.className;
    this.data = init.data ?? {};
    this.error = init.error;
    this.errorDescription = init.errorDescription;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** Names and classNames of CONTRACT §3, for answers that came without an envelope. */
const BY_STATUS: Readonly<Record<number, readonly [string, string]>> = {
  400: ['BadRequest', 'bad-request'],
  401: ['NotAuthenticated', 'not-authenticated'],
  403: ['Forbidden', 'forbidden'],
  404: ['NotFound', 'not-found'],
  405: ['MethodNotAllowed', 'method-not-allowed'],
  409: ['Conflict', 'conflict'],
  413: ['PayloadTooLarge', 'payload-too-large'],
  422: ['Unprocessable', 'unprocessable'],
  429: ['TooManyRequests', 'too-many-requests'],
  500: ['GeneralError', 'general-error'],
  502: ['BadGateway', 'bad-gateway'],
  503: ['Unavailable', 'unavailable'],
};

/** The name/className pair for a status without an envelope (a proxy's page, say). */
export function namesForStatus(status: number): readonly [string, string] {
  return BY_STATUS[status] ?? (status >= 500 ? ['GeneralError', 'general-error'] : ['BadRequest', 'bad-request']);
}
