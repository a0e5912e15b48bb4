/** Requests to a bearer-protected test route and the gateway's error envelope (docs/behaviour.md#envelope). */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from '../../support/harness.js';

export interface ProtectedGet {
  readonly token?: string;
  readonly authorization?: string;
  readonly remoteAddress?: string;
  readonly headers?: Record<string, string>;
  readonly url?: string;
}

export function getProtected(h: Harness, request: ProtectedGet = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...request.headers };
  const authorization = request.authorization ?? (request.token === undefined ? undefined : `Bearer ${request.token}`);
  if (authorization !== undefined) headers['authorization'] = authorization;
  return h.app.inject({
    method: 'GET',
    url: request.url ?? '/test/protected',
    headers,
    ...(request.remoteAddress ? { remoteAddress: request.remoteAddress } : {}),
  });
}

export interface Admitted {
  readonly principal: { clientId: string; platform: string; scopes: string[] };
}

export function assertAdmitted(response: LightMyRequestResponse, why = ''): Admitted {
  assert.equal(response.statusCode, 200, `${why ? `${why}: ` : ''}${response.body}`);
  return response.json<Admitted>();
}

/** The FeathersJS error envelope, with exactly its five members. */
export function assertEnvelope(
  response: LightMyRequestResponse,
  expected: { status: number; name: string; className: string },
  why = '',
): { message: string; data: Record<string, unknown> } {
  const context = `${why ? `${why}: ` : ''}${response.statusCode} ${response.body}`;
  assert.equal(response.statusCode, expected.status, context);
  assert.match(String(response.headers['content-type']), /^application\/json/, context);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['className', 'code', 'data', 'message', 'name'], context);
  assert.equal(body.name, expected.name, context);
  assert.equal(body.className, expected.className, context);
  assert.equal(body.code, expected.status, context);
  assert.equal(typeof body.message, 'string', context);
  assert.ok(body.message.length > 0, context);
  assert.equal(typeof body.data, 'object', context);
  assert.notEqual(body.data, null, context);
  return body;
}

const NOT_AUTHENTICATED = { status: 401, name: 'NotAuthenticated', className: 'not-authenticated' };
export const FORBIDDEN = { status: 403, name: 'Forbidden', className: 'forbidden' };

/** 401 with the bare challenge: no token was presented (RFC 6750 §3.1). */
export function assertNoToken(response: LightMyRequestResponse, why = ''): void {
  assertEnvelope(response, NOT_AUTHENTICATED, why);
  assert.equal(response.headers['www-authenticate'], 'Bearer', why);
}

/** 401 `invalid_token`: a token was presented and refused. */
export function assertInvalidToken(response: LightMyRequestResponse, why = ''): void {
  assertEnvelope(response, NOT_AUTHENTICATED, why);
  assert.equal(response.headers['www-authenticate'], 'Bearer error="invalid_token"', why);
}

/**
 * 401 `invalid_token` saying the token was issued for another audience and naming `audience`,
 * the gateway's, in the message and the challenge; the token itself is never echoed.
 */
export function assertForAnotherAudience(
  response: LightMyRequestResponse,
  audience: string,
  token: string,
  why = '',
): void {
  assertEnvelope(response, NOT_AUTHENTICATED, why);
  const description = `the access token was issued for another audience: this gateway accepts tokens whose aud is ${audience}`;
  assert.equal(response.json<{ message: string }>().message, description, why);
  assert.equal(
    response.headers['www-authenticate'],
    `Bearer error="invalid_token", error_description="${description}"`,
    why,
  );
  assert.ok(!response.body.includes(token) && !JSON.stringify(response.headers).includes(token), why);
}
