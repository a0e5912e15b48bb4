/**
 * Requests to the OAuth endpoints as a client sends them (Basic credentials, a
 * form body), each part overridable, and the assertions every token endpoint
 * answer must pass (docs/behaviour.md#token-errors).
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { basic, type Harness } from '../../support/harness.js';

const FORM = 'application/x-www-form-urlencoded';
export const OAUTH_CONTENT_TYPE = 'application/json;charset=UTF-8';

/** The token endpoint's error codes, exactly those of docs/behaviour.md#token-errors. */
export const TOKEN_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
] as const;
export type TokenErrorCode = (typeof TOKEN_ERROR_CODES)[number];

export interface TestClient {
  readonly id: string;
  readonly secret: string;
}

export type Form = string | Record<string, string> | ReadonlyArray<readonly [string, string]>;

export interface OAuthPost {
  /** Sends `basic(client.id, client.secret)` unless `authorization` is given. */
  readonly client?: TestClient;
  /** The raw Authorization header; `null` sends none. */
  readonly authorization?: string | null;
  /** Defaults to form-urlencoded; `null` sends no Content-Type. */
  readonly contentType?: string | null | undefined;
  readonly body?: Form | Buffer;
}

function encode(body: Form | Buffer | undefined): string | Buffer {
  if (body === undefined) return '';
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  return new URLSearchParams(body as Record<string, string>).toString();
}

function postOAuth(
  h: Harness,
  url: '/oauth2/token' | '/oauth2/revoke',
  request: OAuthPost,
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  const authorization =
    request.authorization !== undefined
      ? request.authorization
      : request.client && basic(request.client.id, request.client.secret);
  if (authorization != null) headers['authorization'] = authorization;
  const contentType = request.contentType === undefined ? FORM : request.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  return h.app.inject({ method: 'POST', url, headers, payload: encode(request.body) });
}

export function postToken(h: Harness, request: OAuthPost): Promise<LightMyRequestResponse> {
  return postOAuth(h, '/oauth2/token', request);
}

export function postRevoke(h: Harness, request: OAuthPost): Promise<LightMyRequestResponse> {
  return postOAuth(h, '/oauth2/revoke', request);
}

/** Token responses must never be cached (RFC 6749 §5.1), errors included. */
export function assertNoStore(response: LightMyRequestResponse): void {
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.equal(response.headers['pragma'], 'no-cache');
}

/** `400 {"error": code}` with the exact Content-Type and the no-store headers. */
export function assertTokenError(response: LightMyRequestResponse, code: TokenErrorCode, why = ''): void {
  const context = `${why ? `${why}: ` : ''}${response.statusCode} ${response.body}`;
  assert.equal(response.statusCode, 400, context);
  assert.equal(response.headers['content-type'], OAUTH_CONTENT_TYPE, context);
  assertNoStore(response);
  const body = response.json<{ error?: unknown; error_description?: unknown }>();
  assert.equal(body.error, code, context);
  if (body.error_description !== undefined) assert.equal(typeof body.error_description, 'string');
}

export interface IssuedTokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in: number;
  readonly scope: string;
  readonly refresh_token?: string;
}

export function assertIssued(response: LightMyRequestResponse, why = ''): IssuedTokens {
  assert.equal(response.statusCode, 200, `${why ? `${why}: ` : ''}${response.body}`);
  assert.equal(response.headers['content-type'], OAUTH_CONTENT_TYPE);
  assertNoStore(response);
  return response.json<IssuedTokens>();
}

/** A successful client_credentials grant. */
export async function clientCredentials(
  h: Harness,
  client: TestClient,
  form: Record<string, string> = {},
): Promise<IssuedTokens> {
  return assertIssued(await postToken(h, { client, body: { grant_type: 'client_credentials', ...form } }));
}

/** A refresh_token grant, whatever its outcome. */
export function refresh(
  h: Harness,
  client: TestClient,
  refreshToken: string,
  form: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return postToken(h, { client, body: { grant_type: 'refresh_token', refresh_token: refreshToken, ...form } });
}

/** A client holding the refresh_token grant, and its first refresh token. */
export async function refreshingClient(h: Harness): Promise<{ client: TestClient; refreshToken: string }> {
  const client = await h.client({ grants: ['refresh_token'] });
  const { refresh_token: refreshToken } = await clientCredentials(h, client);
  assert.ok(refreshToken, 'a client with the refresh_token grant gets a refresh token');
  return { client, refreshToken };
}
