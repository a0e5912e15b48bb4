/**
 * Client authentication of the OAuth endpoints (client_secret_basic), as an
 * `onRequest` hook. It runs before fastify reads and parses the body, so a
 * request with bad credentials is `invalid_client` whatever its body — even a
 * body fastify itself refuses (a malformed Content-Type, one over the size
 * limit) — in the order of docs/behaviour.md#check-order: client authentication first.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientAuthenticator } from '../../../app/authenticate-client.js';
import type { ClientRecord } from '../../../domain/client.js';
import { tokenCallerNotWhitelisted } from '../../../domain/errors.js';
import { IpAllowList } from '../../../domain/ip-allow-list.js';
import { parseBasicCredentials } from '../../basic-credentials.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The client authenticated by {@link authenticateClient}, on the OAuth endpoints. */
    oauthClient: ClientRecord | null;
  }
}

/**
 * Each client record's parsed allow-list: records come from the authenticator's cache, so the
 * same object is seen request after request (a changed client is a new record, a new entry).
 */
const allowLists = new WeakMap<ClientRecord, IpAllowList>();

function allowListOf(client: ClientRecord): IpAllowList {
  let list = allowLists.get(client);
  if (!list) allowLists.set(client, (list = new IpAllowList(client.allowedIps)));
  return list;
}

export function authenticateClient(authenticator: ClientAuthenticator) {
  return async function clientAuthentication(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const client = await authenticator.authenticate(parseBasicCredentials(request.headers.authorization));
    // The allow-list holds at the token endpoint too: a token obtained from elsewhere would only
    // fail later, at the gateway. The same invalid_client as any other refused client, audited
    // with its reason; the caller learns which address was seen (its own).
    if (!allowListOf(client).allows(request.ip)) {
      throw tokenCallerNotWhitelisted(request.ip, { id: client.id, platform: client.platform });
    }
    request.oauthClient = client;
  };
}

/** The client {@link authenticateClient} admitted; a route without the hook is a programming error. */
export function authenticatedClient(request: FastifyRequest): ClientRecord {
  if (!request.oauthClient) throw new Error('OAuth route without the client authentication hook');
  return request.oauthClient;
}
