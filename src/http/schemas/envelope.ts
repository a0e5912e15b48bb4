/**
 * The response envelope of `/core/*` (spec §2.2, CONTRACT §3); the account record
 * it carries is `AccountRecordSchema` of `domain/account.ts`. Response schemas are
 * allow-lists: fast-json-stringify writes exactly these fields, so nothing else can
 * leak to the platform.
 */
import { Type, type TSchema } from '@sinclair/typebox';

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

export const ErrorEnvelope = Type.Object(
  {
    name: Type.String({ examples: ['BadRequest'] }),
    className: Type.String({ examples: ['bad-request'] }),
    message: Type.String(),
    code: Type.Integer(),
    data: Type.Object(
      {
        errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
        reason: Type.Optional(Type.String()),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'ErrorEnvelope', description: 'FeathersJS-style error envelope' },
);

/** What each error status of the gateway means (CONTRACT §3), for the API reference. */
const ERROR_MEANINGS: Readonly<Record<number, string>> = {
  400: 'Invalid request: `data.errors` names each bad field as `{path, message}`',
  401: 'Bearer token missing, invalid or expired (`WWW-Authenticate` says which); from `POST /core/sessions` also: the core did not recognise the customer (then without `WWW-Authenticate`)',
  403: "The token lacks the `core/main` scope, or the caller's IP is not on the client's allow-list",
  404: "The customerId is not registered by the caller's platform",
  409: 'The customerId is already registered for another core customer; nothing changed',
  413: 'Body over 64 KiB',
  429: 'Rate limit exceeded; `Retry-After` says when to try again',
  502: 'The core banking system failed, timed out or answered something unreadable',
  503: "Temporarily unavailable (core circuit open or database down; `Retry-After` says when to try again), or the client's institution is disabled",
};

/** Error statuses a gateway route can answer, each described, all in the error envelope. */
export function gatewayErrors(...statuses: number[]) {
  // One copy per status, without the $id (one route may not declare an id twice).
  const { $id: _id, ...envelope } = ErrorEnvelope;
  return Object.fromEntries(statuses.map((status) => [status, { ...envelope, description: ERROR_MEANINGS[status] ?? envelope.description }]));
}
