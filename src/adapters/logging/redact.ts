/**
 * The logs' second line of defence: a field named like a secret or a personal value is
 * replaced by `[redacted]`, at the top of a log line's object and two levels down (the
 * reach of pino's `x`, `*.x` and `*.*.x` redaction paths). Log calls never pass such a
 * field on purpose (request bodies are never logged); this catches a mistake.
 *
 * Why not pino's `redact` with those wildcard paths: it cloned and walked every line's
 * object for every path on every line, a large share of a token request's CPU
 * (docs/benchmarks.md). This walks
 * the few own keys a line has and copies an object only when it finds something.
 */

export const CENSOR = '[redacted]';

/** Field names never logged with their value (exact, as the old redaction paths were). */
export const SENSITIVE_FIELDS: ReadonlySet<string> = new Set([
  'authorization',
  'cookie',
  'x-api-key',
  'client_secret',
  'clientSecret',
  'secret',
  'access_token',
  'refresh_token',
  'token',
  'password',
  'socialSecurityNumber',
  'accountNumber',
  'birthDay',
  'demographics',
  'delegateReferenceId',
]);

/** How far below the line's own keys fields are looked at. */
const DEPTH = 2;

/** Plain objects, arrays and errors are looked into; sockets, buffers, requests and the like are left to their serializers. */
function scannable(value: object): boolean {
  if (Array.isArray(value) || value instanceof Error) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A shallow copy that keeps what a serializer needs: an error stays an error (its message and stack included). */
function shallowCopy(value: object): Record<string, unknown> {
  if (Array.isArray(value)) return value.slice() as unknown as Record<string, unknown>;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(value) as object | null) as object, value) as Record<
    string,
    unknown
  >;
  if (value instanceof Error) {
    Object.defineProperty(copy, 'message', { value: value.message, writable: true, configurable: true });
    Object.defineProperty(copy, 'stack', { value: value.stack, writable: true, configurable: true });
  }
  return copy;
}

/** `value` itself when nothing in it is sensitive, else a copy with those fields censored (the original is never changed). */
export function redactSensitive<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object') return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    let replaced = field;
    if (SENSITIVE_FIELDS.has(key)) replaced = CENSOR;
    else if (depth < DEPTH && field !== null && typeof field === 'object' && scannable(field))
      replaced = redactSensitive(field, depth + 1);
    if (replaced !== field) {
      copy ??= shallowCopy(value);
      copy[key] = replaced;
    }
  }
  return (copy ?? value) as T;
}
