/**
 * Client authentication of the OAuth endpoints, by the method each client is registered
 * with. `client_secret_basic` is decided in an `onRequest` hook, before fastify reads and
 * parses the body, so a request with bad credentials is `invalid_client` whatever its body —
 * even a body fastify itself refuses (a malformed Content-Type, one over the size limit) —
 * in the order of docs/behaviour.md#check-order: client authentication first. A form request without an
 * Authorization header carries its proof in the body (`private_key_jwt`, RFC 7523 §2.2):
 * decided in a `preValidation` hook, once the body is read, still before any other parameter.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientAuthenticator } from '../../../app/authenticate-client.js';
import { allowListOf } from '../../../app/client-directory.js';
import type { ClientRecord } from '../../../domain/client.js';
import { invalidClient, tokenCallerNotWhitelisted } from '../../../domain/errors.js';
import { parseBasicCredentials } from '../../basic-credentials.js';
import { assertFormContentType } from '../../form-body.js';
import { presentedCertificate, type ClientCertificateSource } from '../../client-certificate.js';
import type { Clock } from '../../../ports/clock.js';
import { OAUTH_BODY_LIMIT } from './oauth-body.js';

/** RFC 7523 §2.2. */
const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

declare module 'fastify' {
  interface FastifyRequest {
    /** The client authenticated by {@link authenticateClient}, on the OAuth endpoints. */
    oauthClient: ClientRecord | null;
  }
}

/** Admits `client` for this request unless the caller's address is outside its allow-list. */
function admit(request: FastifyRequest, client: ClientRecord): void {
  // The allow-list holds at the token endpoint too: a token obtained from elsewhere would only
  // fail later, at the gateway. The same invalid_client as any other refused client, audited
  // with its reason; the caller learns which address was seen (its own).
  if (!allowListOf(client).allows(request.ip)) {
    throw tokenCallerNotWhitelisted(request.ip, { id: client.id, platform: client.platform });
  }
  request.oauthClient = client;
}

/** A request whose body may carry the client's proof: a form of acceptable size. */
function mayCarryProofInBody(request: FastifyRequest): boolean {
  try {
    assertFormContentType(request.headers['content-type']);
  } catch {
    return false;
  }
  const length = Number(request.headers['content-length'] ?? 0);
  return Number.isFinite(length) && length <= OAUTH_BODY_LIMIT;
}

/** The `onRequest` hook: HTTP Basic now; a form without an Authorization header waits for its body. */
export function authenticateClient(authenticator: ClientAuthenticator) {
  return async function clientAuthentication(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const authorization = request.headers.authorization;
    if (authorization === undefined && mayCarryProofInBody(request)) return;
    admit(request, await authenticator.authenticate(parseBasicCredentials(authorization), request.databaseDeadline));
  };
}

/** Mutual TLS at the OAuth endpoints: where certificates come from, and the clock their validity is read on. */
export interface CertificateAuthentication {
  readonly source: ClientCertificateSource;
  readonly clock: Clock;
}

/**
 * The `preValidation` hook: a client not authenticated by its header proves itself in the body
 * (`client_assertion_type` and `client_assertion`, once each), or names itself (`client_id`)
 * over mutual TLS with its certificate (RFC 8705 §2). Without either the answer is today's:
 * send the credentials with HTTP Basic.
 */
export function authenticateClientByBody(authenticator: ClientAuthenticator, certificates?: CertificateAuthentication) {
  return async function clientAuthenticationByBody(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (request.oauthClient) return;
    // Read leniently here: a repeated parameter other than these is the handler's invalid_request, after authentication.
    const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
    const types = form.getAll('client_assertion_type');
    const assertions = form.getAll('client_assertion');
    if (types.length === 0 && assertions.length === 0) {
      const clientIds = form.getAll('client_id');
      const certificate = certificates && presentedCertificate(request, certificates.source, certificates.clock.now());
      if (certificate && clientIds.length === 1 && clientIds[0]) {
        admit(
          request,
          await authenticator.authenticateWithCertificate(clientIds[0], certificate, request.databaseDeadline),
        );
        return;
      }
      throw invalidClient('no Authorization header, no client assertion and no client certificate');
    }
    if (types.length !== 1 || types[0] !== JWT_BEARER_ASSERTION_TYPE) {
      throw invalidClient(`client_assertion_type missing, repeated or not ${JWT_BEARER_ASSERTION_TYPE}`);
    }
    if (assertions.length !== 1 || !assertions[0]) throw invalidClient('client_assertion missing or repeated');
    admit(request, await authenticator.authenticateWithAssertion(assertions[0], request.databaseDeadline));
  };
}

/** The client {@link authenticateClient} admitted; a route without the hook is a programming error. */
export function authenticatedClient(request: FastifyRequest): ClientRecord {
  if (!request.oauthClient) throw new Error('OAuth route without the client authentication hook');
  return request.oauthClient;
}
