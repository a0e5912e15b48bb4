/**
 * Body handling shared by the OAuth endpoints: they take the raw body and parse
 * it themselves, so that a wrong media type, a repeated parameter or a secret in
 * the body become `invalid_request` — after client authentication, in the order of
 * docs/behaviour.md#check-order.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidRequest } from '../../../domain/errors.js';
import { assertFormContentType, parseForm } from '../../form-body.js';

/** OAuth requests are small; anything bigger is not a token request. */
export const OAUTH_BODY_LIMIT = 16 * 1024;

/** Replaces the parsers of this (encapsulated) scope with one that keeps any body as text. */
export function acceptRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: OAUTH_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );
}

/** The form parameters of an authenticated client's request. */
export function readOAuthForm(request: FastifyRequest, clientId: string): Map<string, string> {
  assertFormContentType(request.headers['content-type']);
  const form = parseForm(typeof request.body === 'string' ? request.body : '');
  // RFC 6749 §2.3: one authentication method per request: the Basic header, or an assertion in the body.
  if (form.has('client_secret')) throw invalidRequest('send client credentials in the Authorization header only');
  if (
    request.headers.authorization !== undefined &&
    (form.has('client_assertion') || form.has('client_assertion_type'))
  ) {
    throw invalidRequest('use one client authentication method: HTTP Basic or a client assertion, not both');
  }
  // Some client libraries repeat client_id in the body; harmless only if it names the same client.
  const bodyClientId = form.get('client_id');
  if (bodyClientId !== undefined && bodyClientId !== clientId)
    throw invalidRequest('client_id does not match the authenticated client');
  return form;
}
