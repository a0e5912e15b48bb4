/**
 * The response envelope of `/core/*` (docs/behaviour.md#envelope); the account record
 * it carries is `AccountRecordSchema` of `domain/account.ts`. Response schemas are
 * allow-lists: fast-json-stringify writes exactly these fields, so nothing else can
 * leak to the platform.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { ENVELOPE_KINDS, ERROR_CODES, type EnvelopeName, type ErrorCode } from '../../domain/errors.js';

export function SuccessEnvelope<T extends TSchema>(data: T, id: string, description?: string) {
  return Type.Object(
    {
      name: Type.Literal('Success'),
      className: Type.Literal('Success'),
      message: Type.Literal('Success'),
      data,
      code: Type.Literal(200),
    },
    { $id: id, additionalProperties: false, ...(description ? { description } : {}) },
  );
}

export function success<T>(data: T) {
  return { name: 'Success', className: 'Success', message: 'Success', data, code: 200 } as const;
}

/** Codes no gateway route answers: the OAuth endpoints', the operator commands' and an unknown path's. */
const NOT_FROM_A_GATEWAY_ROUTE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'not_found',
  'already_exists',
  'route_not_found',
]);

/** The `data.reason` values a gateway route's answer with `status` can carry, from the one table of codes. */
function gatewayReasons(status: number): ErrorCode[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => {
    const kind: { envelope: EnvelopeName; told?: string } = ERROR_CODES[code];
    return (
      ENVELOPE_KINDS[kind.envelope].status === status && kind.told === undefined && !NOT_FROM_A_GATEWAY_ROUTE.has(code)
    );
  });
}

/** The `Retry-After` response header (RFC 9110 §10.2.3), as the API reference documents it. */
export const RETRY_AFTER_HEADER = {
  'retry-after': { type: 'integer', minimum: 0, description: 'Seconds to wait before trying again' },
};

/** What each error status of the gateway means, its extra `data` fields, headers and example `data` and message. */
const GATEWAY_STATUSES: Readonly<
  Record<
    number,
    {
      readonly meaning: string;
      readonly data?: Readonly<Record<string, TSchema>>;
      readonly headers?: Readonly<Record<string, unknown>>;
      readonly example: {
        readonly reason: ErrorCode;
        readonly message: string;
        readonly data?: Readonly<Record<string, unknown>>;
      };
    }
  >
> = {
  400: {
    meaning: 'Invalid request: `data.errors` names each bad field as `{path, message}`',
    data: {
      errors: Type.Array(
        Type.Object({ path: Type.String({ description: 'JSON Pointer to the field' }), message: Type.String() }),
        { description: 'each bad field' },
      ),
    },
    example: {
      reason: 'invalid_request',
      message: 'invalid registration',
      data: { errors: [{ path: '/registration/customerId', message: 'is required' }] },
    },
  },
  401: {
    meaning:
      'Bearer token missing or invalid (`WWW-Authenticate` says which); the core did not recognise the customer at registration, ' +
      'or no longer recognises a registered one (`reregistration_required`): then without `WWW-Authenticate`',
    headers: {
      'www-authenticate': { type: 'string', description: '`Bearer` (no token) or `Bearer error="invalid_token"`' },
    },
    example: { reason: 'invalid_token', message: 'invalid or expired access token' },
  },
  403: {
    meaning:
      "The token lacks the `core/main` scope, or the caller's IP is not on the client's allow-list (`data.ip` is the address seen)",
    data: { ip: Type.Optional(Type.String({ description: 'the caller address seen, with `ip_not_whitelisted`' })) },
    example: { reason: 'insufficient_scope', message: 'the access token lacks the core/main scope' },
  },
  404: {
    meaning:
      "The customerId is not registered by the caller's platform (the same answer for another platform's customer)",
    example: { reason: 'customer_not_registered', message: 'no registered customer with this customerId' },
  },
  409: {
    meaning: 'The customerId is already registered for another core customer; nothing changed',
    data: { customerId: Type.Optional(Type.String()) },
    example: {
      reason: 'customer_id_taken',
      message: 'this customerId is already registered for another core customer',
      data: { customerId: 'cust-0001' },
    },
  },
  413: {
    meaning: 'Body over 64 KiB',
    example: { reason: 'payload_too_large', message: 'request body is too large' },
  },
  429: {
    meaning: 'Rate limit exceeded; `Retry-After` (and `data.retryAfter`) says when to try again',
    data: { retryAfter: Type.Optional(Type.Integer({ description: 'seconds, as `Retry-After`' })) },
    headers: RETRY_AFTER_HEADER,
    example: { reason: 'rate_limited', message: 'too many requests, retry later', data: { retryAfter: 12 } },
  },
  501: {
    meaning: "The institution's core banking system does not offer this call (for example transactions)",
    example: { reason: 'not_supported_by_core', message: "the institution's core banking system does not offer this" },
  },
  502: {
    meaning: 'The core banking system failed, timed out or answered something unreadable',
    example: { reason: 'core_failed', message: 'the core banking system did not answer properly' },
  },
  503: {
    meaning:
      "Temporarily unavailable (core circuit open, database down, shutting down; `Retry-After` says when to try again), or the client's institution is disabled",
    headers: RETRY_AFTER_HEADER,
    example: { reason: 'unavailable', message: 'the core banking system is unavailable; try again later' },
  },
};

/** The envelope of one error status: its own name, className and code, the reasons it carries and an example. */
function errorEnvelope(status: number) {
  const meaning = GATEWAY_STATUSES[status];
  const envelope = (Object.entries(ENVELOPE_KINDS) as [EnvelopeName, { status: number; className: string }][]).find(
    ([, kind]) => kind.status === status,
  );
  if (!meaning || !envelope) throw new Error(`no gateway error envelope for ${status}`);
  const [name, { className }] = envelope;
  const reasons = gatewayReasons(status);
  return {
    ...Type.Object(
      {
        name: Type.Literal(name),
        className: Type.Literal(className),
        message: Type.String({ description: 'for a person; branch on `data.reason`' }),
        code: Type.Integer({ const: status }),
        data: Type.Object(
          {
            reason: Type.Unsafe<ErrorCode>({
              type: 'string',
              enum: reasons,
              description: 'the error code (docs/errors.md): the same in the audit log',
            }),
            requestId: Type.String({
              description: "the request id, also in `X-Request-Id`: quote it to the bank's support",
            }),
            ...meaning.data,
          },
          { additionalProperties: true },
        ),
      },
      {
        description: meaning.meaning,
        examples: [
          {
            name,
            className,
            message: meaning.example.message,
            code: status,
            data: {
              ...meaning.example.data,
              reason: meaning.example.reason,
              requestId: '6f1c1d9e-0b7a-4c1e-9a56-3f4f2d1c8b20',
            },
          },
        ],
      },
    ),
    ...(meaning.headers ? { headers: meaning.headers } : {}),
  };
}

/** Error statuses a gateway route can answer, each with its own envelope (docs/errors.md), documented. */
export function gatewayErrors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, errorEnvelope(status)]));
}
