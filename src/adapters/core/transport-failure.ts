/**
 * What a failed HTTP exchange with a core means, for every connector that speaks HTTP
 * (the reference protocol's and Fineract's): the deadline passed, the request never left
 * coregate, or the connection broke on the way; and a core shedding load (429). Messages name the cause, never a value
 * of the request.
 */
import { CoreBusy, CoreProtocolError, CoreUnavailable, type CoreError } from '../../ports/core-connector.js';
import { AnswerTooLarge } from './answer-exchange.js';
import type { CallDeadline } from './call-deadline.js';

/** Errors that mean the request never left coregate, so nothing can have happened at the core. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMED_OUT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * A core that answered 429 did nothing: the platform is asked to come back after this many
 * seconds. The core's own `Retry-After` is not read (only an answer's status and body are kept).
 */
const CORE_BUSY_RETRY_AFTER_SECONDS = 1;

/** The failure of a 429 answer, the same for every protocol. */
export function coreBusy(): CoreBusy {
  return new CoreBusy(CORE_BUSY_RETRY_AFTER_SECONDS);
}

/** The system or undici error code of `error` (or of its cause), if any. */
function errorCode(error: unknown): string | undefined {
  const candidate = error as { code?: unknown; cause?: { code?: unknown }; errors?: { code?: unknown }[] };
  const code = candidate?.code ?? candidate?.cause?.code ?? candidate?.errors?.[0]?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether the exchange failed because its deadline passed (ours, or undici's own timeouts). */
function timedOut(error: unknown, deadline: CallDeadline): boolean {
  const code = errorCode(error);
  return deadline.expired || (code !== undefined && TIMED_OUT.has(code));
}

/**
 * The typed failure of an exchange that threw. `retrySafe(reachedCore)` says whether the
 * call may be repeated, knowing whether the request may have reached the core.
 */
export function transportFailure(
  error: unknown,
  deadline: CallDeadline,
  limits: { readonly timeoutMs: number; readonly maxResponseBytes: number },
  retrySafe: (reachedCore: boolean) => boolean,
): CoreError {
  if (error instanceof AnswerTooLarge)
    return new CoreProtocolError(`the answer is larger than ${limits.maxResponseBytes} bytes`, retrySafe(true));
  const code = errorCode(error);
  if (timedOut(error, deadline)) return new CoreUnavailable(`no answer within ${limits.timeoutMs} ms`, retrySafe(true));
  if (code !== undefined && NOT_SENT.has(code))
    return new CoreUnavailable(`cannot connect to the core (${code})`, retrySafe(false));
  return new CoreUnavailable(`the call failed (${code ?? (error as Error)?.name ?? 'unknown error'})`, retrySafe(true));
}
