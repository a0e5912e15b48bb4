/**
 * The audit log at the HTTP edge (docs/behaviour.md#audit-log). Every request to an audited route
 * (`config.audit`) writes one row when its answer is ready — in `onSend`, before a
 * byte goes out, so that an answered request has its row committed (except a refused
 * client authentication, whose row must not tell by its wait that the client exists) — and every
 * refusal of the bearer check writes an `access.denied` row, on any route.
 * Refusals of callers not identified (no token, an invalid token, an unknown client)
 * are audited in aggregate instead: one row per source address, event type and reason
 * per minute, with a count (`app/refusal-aggregator.ts`); the metrics count each one.
 *
 * A registration or a deregistration that changed something has its success row written by the
 * store in the change's own transaction (both committed or neither); this plugin then writes none.
 *
 * Rows hold identifiers and reason codes only: never a body, a header or a token. A
 * failure's reason is the code of the error answered (`domain/errors.ts`, docs/errors.md),
 * the same as the answer's `data.reason` and the log line's `code`.
 * A client id is recorded only once it is known to exist. Rate-limited requests
 * (429), and requests refused before the caller is identified for a reason other
 * than its credentials (load shedding, the database down), are not audited: they
 * are operational events, counted in the metrics, and auditing them would turn a
 * flood into as many writes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditEntry, AuditTrail } from '../../app/audit-trail.js';
import type { AuditEventType } from '../../ports/audit-log.js';
import { CUSTOMER_ID_PATTERN } from '../../domain/registration.js';
import { answeredError } from './error-handler.js';

/** What the requests of a route are audited as. */
type AuditedRoute =
  'token' | 'registration' | 'accounts' | 'transactions' | 'transactions_sync' | 'customer-read' | 'deregistration';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Audit every request of this route (see `plugins/audit.ts`). */
    audit?: AuditedRoute;
  }
  interface FastifyRequest {
    /** The use case committed this request's audit row with its change (see `app/audit-trail.ts`): none is written here. */
    auditRecorded: boolean;
  }
}

const CUSTOMER_ID = new RegExp(CUSTOMER_ID_PATTERN);

export function installAuditing(app: FastifyInstance, trail: AuditTrail): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const entry = auditEntry(request, reply);
    if (!entry) return payload;
    // A caller nobody identified (no token, a bad token, an unknown client) is counted per
    // address and minute: one row each would let a flood fill the append-only table (docs/behaviour.md#audit-log).
    if (
      entry.clientId === null &&
      (entry.type === 'access.denied' || entry.type === 'token.denied') &&
      entry.reason !== null
    ) {
      trail.refused({ type: entry.type, reason: entry.reason, sourceIp: request.ip });
      return payload;
    }
    // A refused client authentication of a client that exists is not waited for: an unknown
    // client's refusal (counted above) never waits for a row, and the answer's time must not
    // tell the two apart (docs/operations.md, "Threat model"). The row is still written
    // (drained at shutdown).
    if (entry.type === 'token.denied' && entry.reason === 'invalid_client') {
      void trail.record(entry);
      return payload;
    }
    // Never throws and never holds the answer longer than the trail's patience, nor than the
    // request's database deadline has left (none once the database failed the request).
    await trail.record(entry, request.databaseDeadline);
    return payload;
  });
}

function auditEntry(request: FastifyRequest, reply: FastifyReply): AuditEntry | undefined {
  const denial = request.accessDenial;
  if (denial) {
    return {
      type: 'access.denied',
      outcome: 'failure',
      reason: denial.reason,
      actor: 'client',
      clientId: denial.client?.clientId ?? null,
      platform: denial.client?.platform ?? null,
      institution: denial.client?.institution ?? null,
      // Whatever customer the refused request named is not the caller's to write into the log.
      customerId: null,
      requestId: request.id,
    };
  }
  const route = request.routeOptions.config?.audit;
  // A change's row committed in the change's own transaction (registration, deregistration).
  if (request.auditRecorded) return undefined;
  // Rate limiting is counted in the metrics; auditing it would turn a flood into as many writes.
  if (route === undefined || reply.statusCode === 429) return undefined;
  switch (route) {
    case 'token':
      return tokenEntry(request, reply);
    case 'registration':
      return gatewayEntry('session.registered', request, reply, registrationCustomerId(request.body));
    case 'accounts':
      return gatewayEntry('accounts.listed', request, reply, accountsCustomerId(request.query));
    case 'transactions':
      return gatewayEntry('transactions.listed', request, reply, accountsCustomerId(request.query));
    case 'transactions_sync':
      return gatewayEntry('transactions.synced', request, reply, accountsCustomerId(request.query));
    case 'customer-read':
      return gatewayEntry('session.read', request, reply, accountsCustomerId(request.query));
    case 'deregistration':
      return gatewayEntry('session.deregistered', request, reply, accountsCustomerId(request.query));
  }
}

function tokenEntry(request: FastifyRequest, reply: FastifyReply): AuditEntry | undefined {
  const client = request.oauthClient;
  // Literals written out rather than spread from a common base: a spread is a slow copy in V8, and
  // this runs on every token request.
  if (reply.statusCode < 400 && client) {
    return {
      type: 'token.issued',
      outcome: 'success',
      reason: null,
      actor: 'client',
      clientId: client.id,
      platform: client.platform,
      institution: client.institution,
      customerId: null,
      requestId: request.id,
    };
  }
  const error = answeredError(request);
  // The client_id of a failed authentication only if such a client exists: junk input is not stored.
  const known = client
    ? { id: client.id, platform: client.platform, institution: client.institution }
    : error?.oauth.error === 'invalid_client'
      ? (error.knownClient ?? null)
      : undefined;
  if (known === undefined) return undefined;
  return {
    type: 'token.denied',
    outcome: 'failure',
    reason: failureReason(request, reply.statusCode),
    actor: 'client',
    clientId: known?.id ?? null,
    platform: known?.platform ?? null,
    institution: known?.institution ?? null,
    customerId: null,
    requestId: request.id,
  };
}

/** The code of the error the request was answered with (every error answer goes through `plugins/error-handler.ts`). */
function failureReason(request: FastifyRequest, status: number): string {
  return answeredError(request)?.code ?? `http_${status}`;
}

function gatewayEntry(
  type: AuditEventType,
  request: FastifyRequest,
  reply: FastifyReply,
  customerId: string | null,
): AuditEntry | undefined {
  const principal = request.principal;
  if (!principal) return undefined;
  const succeeded = reply.statusCode < 400;
  return {
    type,
    outcome: succeeded ? 'success' : 'failure',
    reason: succeeded ? null : failureReason(request, reply.statusCode),
    actor: 'client',
    clientId: principal.clientId,
    platform: principal.platform,
    institution: principal.institution,
    customerId,
    requestId: request.id,
  };
}

/** The customerId of a registration body, if it is one (the body may be anything at all). */
function registrationCustomerId(body: unknown): string | null {
  const registration =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['registration'] : undefined;
  const customerId =
    typeof registration === 'object' && registration !== null
      ? (registration as Record<string, unknown>)['customerId']
      : undefined;
  return validCustomerId(typeof customerId === 'string' ? customerId.trim() : undefined);
}

function accountsCustomerId(query: unknown): string | null {
  const customerId =
    typeof query === 'object' && query !== null ? (query as Record<string, unknown>)['customerId'] : undefined;
  return validCustomerId(typeof customerId === 'string' ? customerId : undefined);
}

function validCustomerId(value: string | undefined): string | null {
  return value !== undefined && CUSTOMER_ID.test(value) ? value : null;
}
