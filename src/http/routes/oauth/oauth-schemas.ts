/**
 * Every answer of the OAuth endpoints that is not a success, as the error handler
 * (`plugins/error-handler.ts`) writes it, so that each route declares every status
 * it can answer (docs/behaviour.md#token-errors; RFC 6749 §5.2, RFC 7009 §2.2). One schema per
 * body.
 */
import { Type } from '@sinclair/typebox';
import { RETRY_AFTER_HEADER } from '../../schemas/envelope.js';

/**
 * The codes the endpoints answer (`OAuthErrorCode` in domain/errors.ts). RFC 7009's
 * `unsupported_token_type` is not among them: the revocation endpoint answers 200
 * for any token it does not revoke, as RFC 7009 §2.2 allows.
 */
const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_dpop_proof',
] as const;

export const OAuthErrorSchema = Type.Object(
  {
    // A string enum: the reference lists the codes instead of `string | string | …`.
    error: Type.Unsafe<(typeof OAUTH_ERROR_CODES)[number]>({ type: 'string', enum: [...OAUTH_ERROR_CODES] }),
    error_description: Type.Optional(Type.String()),
  },
  { $id: 'OAuthError', description: 'OAuth 2.0 error (RFC 6749 §5.2)', examples: [{ error: 'invalid_grant' }] },
);

/** The 405 body: any method but POST (the `Allow` header says POST). */
const OAuthMethodNotAllowedSchema = Type.Object(
  { error: Type.Literal('invalid_request'), error_description: Type.String({ examples: ['use POST'] }) },
  { description: 'Any method but POST: `Allow: POST`' },
);

/** The token endpoints' 429 body (`invalid_request`, docs/behaviour.md#token-errors; RFC 6749 has no code for this). */
const OAuthRateLimitedSchema = {
  ...Type.Object(
    {
      error: Type.Literal('invalid_request'),
      error_description: Type.Literal('too many requests, retry later'),
    },
    { description: 'Rate limit exceeded; `Retry-After` says when to try again (README "Rate limits")' },
  ),
  headers: RETRY_AFTER_HEADER,
};

/** The 503 body (RFC 6749 §4.1.2.1 names the code for the authorization endpoint; it says the same here). */
const OAuthUnavailableSchema = {
  ...Type.Object(
    { error: Type.Literal('temporarily_unavailable') },
    { description: 'Temporarily unavailable (database down); `Retry-After` says when to try again' },
  ),
  headers: RETRY_AFTER_HEADER,
};

/** The error statuses both OAuth endpoints can answer, besides their 400. */
export const OAUTH_ERROR_RESPONSES = {
  405: OAuthMethodNotAllowedSchema,
  429: OAuthRateLimitedSchema,
  503: OAuthUnavailableSchema,
} as const;
