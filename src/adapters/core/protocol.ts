/**
 * The reference core protocol (docs/core-protocol.md): paths, headers, wire
 * shapes and error codes, shared by the HTTP connector, the simulator server and
 * the in-process connector so the three cannot drift apart.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  CoreProtocolError,
  CoreUnavailable,
  CustomerNotRecognised,
  SessionRejected,
  type CoreError,
} from '../../ports/core-connector.js';
import type { AccountRecord } from '../../domain/account.js';
import { coreBusy } from './transport-failure.js';

export const PROTOCOL_PATHS = {
  sessions: '/v1/sessions',
  accounts: '/v1/accounts',
  /** Optional for a bank's adapter: coregate's readiness check (`/readyz`) takes any answer below 500 as "reachable". */
  health: '/v1/health',
} as const;

/** Header names, lower-case as node:http and undici report them. */
export const PROTOCOL_HEADERS = {
  apiKey: 'x-api-key',
  requestId: 'x-request-id',
  delegateReferenceId: 'x-delegate-reference-id',
} as const;

/** `POST /v1/sessions` body: exactly one of the two forms. */
export type StartSessionBody =
  | {
      readonly demographics: {
        readonly socialSecurityNumber: string;
        readonly accountNumber: string;
        readonly birthDay: string;
      };
    }
  | { readonly customerKey: string };

/** Visible ASCII, 1 to 128 characters: the platform may send the key back in Form B. */
export const CUSTOMER_KEY_PATTERN = '^[\\x21-\\x7e]{1,128}$';
/** Visible ASCII, 1 to 1024 characters: it travels in a header. */
export const HEADER_SAFE_PATTERN = '^[\\x21-\\x7e]{1,1024}$';

/** `201` answer of `POST /v1/sessions`; the HTTP connector checks answers with it (other fields are ignored). */
export const SessionBodySchema = Type.Object({
  customerKey: Type.String({ pattern: CUSTOMER_KEY_PATTERN }),
  delegateReferenceId: Type.String({ pattern: HEADER_SAFE_PATTERN }),
  /** ISO 8601 with a zone, e.g. `2026-03-01T12:15:00.000Z`; the connector also checks it is a real instant. */
  expiresAt: Type.String(),
});
export type SessionBody = Readonly<Static<typeof SessionBodySchema>>;

/** `200` answer of `GET /v1/accounts`. */
export interface AccountsBody {
  readonly accounts: readonly AccountRecord[];
}

/**
 * Answers to `DELETE /v1/sessions` that end a deregistration as well as a 204: the
 * core does not offer the call (404, 405, 501), or the session is already gone
 * there (401 `session_invalid`). The session expires at the core on its own.
 */
export function sessionEndedAnyway(status: number): boolean {
  return status === 404 || status === 405 || status === 501 || status === 401;
}

/** The closed list of error codes of the protocol, with the status each one travels with. */
interface ProtocolErrorStatuses {
  invalid_request: 400;
  session_invalid: 401;
  api_key_invalid: 403;
  customer_not_found: 404;
  not_found: 404;
  method_not_allowed: 405;
  payload_too_large: 413;
  core_failure: 500;
}

export type ProtocolErrorCode = keyof ProtocolErrorStatuses;

/** Every error answer: `{"error": code, "message": text}`. The message is for humans; act on the code. */
export interface ErrorBody {
  readonly error: string;
  readonly message?: string;
}

export type CoreOperation = 'startSession' | 'listAccounts' | 'endSession';

/**
 * Whether a failed call can be repeated without harm. Reading accounts always
 * can. Starting a session can only when the request never reached the core: once
 * it has, the core may have started a session we never heard of (harmless, it
 * expires, but not "nothing changed"); the caller decides whether to retry.
 */
export function retrySafe(operation: CoreOperation, reachedCore: boolean): boolean {
  return operation !== 'startSession' || !reachedCore;
}

/**
 * The typed failure for a non-success answer of the core. Shared by both
 * connectors so an injected fault looks the same in process and over HTTP.
 */
export function errorForAnswer(operation: CoreOperation, status: number, code: string | undefined): CoreError {
  if (operation === 'startSession' && status === 404 && code === 'customer_not_found')
    return new CustomerNotRecognised();
  if (operation === 'listAccounts' && status === 401 && code === 'session_invalid') return new SessionRejected();
  // A core shedding load did nothing: the platform is asked to come back (docs/core-protocol.md#4-errors).
  if (status === 429) return coreBusy();
  if (status >= 500 && status <= 599)
    return new CoreUnavailable(`the core answered ${status}`, retrySafe(operation, true));
  if (code === 'api_key_invalid') {
    return new CoreProtocolError(
      `the core refused coregate's API key (${status} api_key_invalid); check COREGATE_CORE_API_KEY`,
      retrySafe(operation, true),
    );
  }
  const what = code === undefined ? '' : ` (${safeCode(code)})`;
  return new CoreProtocolError(`unexpected answer ${status}${what} to ${operation}`, retrySafe(operation, true));
}

/** An error code as received, cut down to something safe to put in a log line. */
function safeCode(code: string): string {
  return /^[a-z0-9_.-]{1,64}$/i.test(code) ? code : 'unrecognised error code';
}
