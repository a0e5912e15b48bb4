/** `POST /oauth2/token` — docs/behaviour.md#token-endpoint. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ClientRecord } from '../../../domain/client.js';
import type { TokenIssuer } from '../../../app/issue-token.js';
import type { DpopProofs } from '../../../app/dpop-proofs.js';
import { invalidDpopProof } from '../../../domain/errors.js';
import { InvalidProof } from '../../../ports/client-proofs.js';
import type { Clock } from '../../../ports/clock.js';
import type { Confirmation } from '../../../ports/token-signer.js';
import { noStore } from '../../plugins/error-handler.js';
import { authenticatedClient, type CertificateAuthentication } from './client-authentication.js';
import { tokenEndpointChecks, type TokenEndpointCheckDeps } from './token-endpoint-checks.js';
import { presentedCertificate } from '../../client-certificate.js';
import { acceptRawBodies, readOAuthForm } from './oauth-body.js';
import { OAUTH_ERROR_RESPONSES, OAuthErrorSchema } from './oauth-schemas.js';

export interface TokenRouteDeps {
  /** What runs before the handler: HTTPS, rate limits, client authentication (mutual TLS included). */
  readonly checks: TokenEndpointCheckDeps;
  readonly issuer: TokenIssuer;
  /** DPoP-bound tokens (RFC 9449); without it a `DPoP` header is ignored. */
  readonly dpop?: { readonly proofs: DpopProofs; readonly clock: Clock; readonly tokenEndpointUrl: () => string };
}

const TokenResponseSchema = Type.Object(
  {
    access_token: Type.String({
      description: 'Signed JWT access token (EdDSA, or the COREGATE_SIGNING_ALG of its key), verifiable with the JWKS',
    }),
    token_type: Type.Union([Type.Literal('Bearer'), Type.Literal('DPoP')], {
      description: '`DPoP` when the request carried a valid DPoP proof: the token is bound to its key (`cnf.jkt`)',
    }),
    expires_in: Type.Integer({ description: 'Seconds of validity' }),
    scope: Type.String(),
    refresh_token: Type.Optional(
      Type.String({ description: 'Only for clients holding the refresh_token grant; rotates on use' }),
    ),
  },
  {
    $id: 'TokenResponse',
    description: 'An access token, and a refresh token for clients holding that grant',
    examples: [
      {
        access_token: 'eyJhbGciOiJFZERTQSIsImtpZCI6IjJmOTIyMDRlLi4uIiwidHlwIjoiYXQrand0In0.eyJ…',
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'core/main',
      },
    ],
  },
);

/**
 * The form parameters: the documented shape. Fastify does not validate this body: the
 * checks run client authentication → `grant_type` → the other parameters
 * (docs/behaviour.md#check-order), and a schema validator reports whatever field it meets
 * first. So the route takes the raw body (`acceptRawBodies`) and `readOAuthForm` and the
 * token issuer check it, in that order, after the client authentication hook. For the same
 * reason the route uses no type provider: its body is the raw text.
 */
const TokenRequestSchema = Type.Object(
  {
    // One string enum, so the reference shows the two values (a union of literals renders as `string | (string | string)`).
    grant_type: Type.Unsafe<'client_credentials' | 'refresh_token'>({
      type: 'string',
      enum: ['client_credentials', 'refresh_token'],
      description: '`authorization_code` is `unauthorized_client`; anything else `unsupported_grant_type`',
    }),
    scope: Type.Optional(
      Type.String({ description: "One scope; omitted: all the client's scopes", examples: ['core/main'] }),
    ),
    refresh_token: Type.Optional(
      Type.String({
        description:
          'With `grant_type=refresh_token`: the refresh token to redeem (it rotates: the answer carries the next one)',
      }),
    ),
  },
  { examples: [{ grant_type: 'client_credentials', scope: 'core/main' }] },
);

const TOKEN_DESCRIPTION = [
  "Client authentication, by the method the client is registered with: HTTP Basic (`client_secret_basic`: client_id and client_secret each form-urlencoded, then base64), or `private_key_jwt` (RFC 7523: form parameters `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer` and `client_assertion`, a JWT signed with a key of the client's registered JWKS — EdDSA/Ed25519, ES256 or PS256 — with `iss` = `sub` = client id, `aud` the issuer or this endpoint's URL, `exp` at most 5 minutes ahead and a `jti` used once). A `client_secret` in the body is `invalid_request`.",
  'The body is `application/x-www-form-urlencoded`; a parameter given twice is `invalid_request`.',
  'Checks run in this order: client authentication (`invalid_client`), then `grant_type`, then the other parameters.',
  'Access tokens are JWTs (RFC 9068, `typ: at+jwt`) signed with EdDSA, or ES256 or PS256 (`COREGATE_SIGNING_ALG`), verifiable with `GET /.well-known/jwks.json`. Besides `iss`, `sub`/`client_id`, `aud` (the gateway, `COREGATE_TOKEN_AUDIENCE`), `scope`, `exp`, `iat` and `jti` they carry `institution`: the bank the client acts for (`default` in a one-bank deployment).',
  'A client of a disabled institution is `invalid_client`.',
  'Refresh tokens rotate on use; presenting one already used is `invalid_grant` and revokes every token of its chain.',
  'Every answer carries `Cache-Control: no-store` and `Pragma: no-cache`.',
  [
    'Which condition gives which answer, in the order checked:',
    '',
    '| condition | status | `error` |',
    '|---|---|---|',
    '| no HTTP Basic credentials (for example the secret sent in the form body only) | 400 | `invalid_client` (`error_description` says to use `client_secret_basic`) |',
    '| unknown client, wrong secret, disabled client | 400 | `invalid_client` |',
    "| caller's address outside the client's IP allow-list | 400 | `invalid_client` |",
    '| Content-Type not `application/x-www-form-urlencoded`, a parameter given twice, `client_secret` in the body | 400 | `invalid_request` |',
    '| `grant_type` missing | 400 | `invalid_request` |',
    '| `grant_type=authorization_code`, or `refresh_token` for a client without that grant | 400 | `unauthorized_client` |',
    '| any other `grant_type` | 400 | `unsupported_grant_type` |',
    '| more than one scope, an unknown scope | 400 | `invalid_request` |',
    '| a known scope the client was not granted | 400 | `invalid_grant` |',
    '| `refresh_token` missing | 400 | `invalid_request` |',
    "| refresh token unknown, expired, revoked, already used or another client's | 400 | `invalid_grant` |",
    '| too many requests | 429 | `invalid_request` (with `Retry-After`) |',
    '| database unavailable | 503 | `temporarily_unavailable` |',
  ].join('\n'),
].join('\n\n');

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function tokenRoute(app: FastifyInstance, deps: TokenRouteDeps): Promise<void> {
  acceptRawBodies(app);
  app.route({
    method: 'POST',
    url: '/oauth2/token',
    config: { errorFormat: 'oauth', audit: 'token' },
    schema: {
      summary: 'Obtain an access token (client_credentials or refresh_token grant)',
      description: TOKEN_DESCRIPTION,
      tags: ['oauth'],
      security: [{ clientSecretBasic: [] }],
      consumes: ['application/x-www-form-urlencoded'],
      body: TokenRequestSchema,
      response: { 200: TokenResponseSchema, 400: OAuthErrorSchema, ...OAUTH_ERROR_RESPONSES },
    },
    // The body schema documents (see TokenRequestSchema); readOAuthForm validates, in the order of docs/behaviour.md#check-order.
    validatorCompiler: () => (value: unknown) => ({ value }),
    ...tokenEndpointChecks(deps.checks),
    handler: async (request, reply) => {
      const client = authenticatedClient(request);
      const form = readOAuthForm(request, client.id);
      const tokens = await deps.issuer.issue(
        client,
        { grant_type: form.get('grant_type'), scope: form.get('scope'), refresh_token: form.get('refresh_token') },
        (await dpopBinding(request, deps.dpop)) ?? certificateBinding(request, client, deps.checks.certificates),
        request.databaseDeadline,
      );
      request.log.debug({ clientId: client.id, scope: tokens.scope }, 'token issued');
      noStore(reply).type('application/json;charset=UTF-8');
      // The payload, not `reply.send()`: an async handler returning the reply (a thenable)
      // makes Fastify watch the response stream for its end, work every request pays for nothing.
      return tokens;
    },
  });
}

/** The key the request's `DPoP` header proves possession of (RFC 9449 §5), or `undefined` without one. */
async function dpopBinding(request: FastifyRequest, dpop: TokenRouteDeps['dpop']): Promise<Confirmation | undefined> {
  const header = request.headers['dpop'];
  if (header === undefined || !dpop) return undefined;
  if (typeof header !== 'string') throw invalidDpopProof('no DPoP header, or several', {}, 'send one DPoP header');
  try {
    const proof = await dpop.proofs.check(
      header,
      { method: 'POST', url: dpop.tokenEndpointUrl(), now: dpop.clock.now() },
      request.databaseDeadline,
    );
    return { jkt: proof.jkt };
  } catch (error) {
    if (error instanceof InvalidProof) throw invalidDpopProof(error.reason);
    throw error;
  }
}

/**
 * RFC 8705 §3: a client registered for bound tokens that called over mutual TLS gets a token
 * bound to its certificate (`cnf["x5t#S256"]`); the gateway then wants the same certificate.
 */
function certificateBinding(
  request: FastifyRequest,
  client: ClientRecord,
  certificates: CertificateAuthentication | undefined,
): Confirmation | undefined {
  if (!certificates || !client.requireBoundTokens) return undefined;
  const certificate = presentedCertificate(request, certificates.source, certificates.clock.now());
  return certificate ? { 'x5t#S256': certificate.thumbprint } : undefined;
}
