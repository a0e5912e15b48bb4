/**
 * The one error handler: it renders the one error model (`domain/errors.ts`, docs/errors.md)
 * in the route's form. OAuth routes answer `{error, error_description}` (RFC 6749 §5.2);
 * every other route answers the FeathersJS envelope (docs/behaviour.md#envelope). What the
 * caller is told never includes a stack, a secret or what it sent; the real cause is logged.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  internalError,
  invalidRequest,
  methodNotAllowed as wrongMethod,
  payloadTooLarge,
  routeNotFound,
  unavailable,
  type FieldProblem,
} from '../../domain/errors.js';
import { fromDatabaseFailure } from '../../app/database-failures.js';
import { DatabaseUnavailable } from '../../ports/database-unavailable.js';
import { KeyCustodyUnavailable } from '../../ports/signing-key-custody.js';
import { callerOf } from './request-log.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How errors of this route are rendered; the gateway envelope unless `oauth`. */
    errorFormat?: 'oauth' | 'envelope';
  }
}

const OAUTH_CONTENT_TYPE = 'application/json;charset=UTF-8';

/** Token responses must never be cached (RFC 6749 §5.1). */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/** The error each answered request failed with, for the audit row (`plugins/audit.ts`). */
const answered = new WeakMap<FastifyRequest, ApiError>();

/** The error a request was answered with, if it failed: its `code` is the audit row's reason. */
export function answeredError(request: FastifyRequest): ApiError | undefined {
  return answered.get(request);
}

function withHeaders(reply: FastifyReply, error: ApiError): FastifyReply {
  answered.set(reply.request, error);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply;
}

/**
 * The OAuth form (RFC 6749 §5.2): the table's code for the error, with `error_description` for a
 * refusal of the request; a 5xx says nothing more than its code.
 */
function sendOAuthError(reply: FastifyReply, error: ApiError): FastifyReply {
  const { error: code, status } = error.oauth;
  const body = status < 500 ? { error: code, error_description: error.message } : { error: code };
  return noStore(withHeaders(reply, error)).code(status).type(OAUTH_CONTENT_TYPE).send(body);
}

/**
 * The envelope. `data.reason` is the error's code a program may branch on (docs/errors.md) and
 * `data.requestId` the id a platform quotes to the bank's support (also `X-Request-Id`).
 */
function sendEnvelopeError(reply: FastifyReply, error: ApiError): FastifyReply {
  return withHeaders(reply, error)
    .code(error.status)
    .send({
      name: error.name,
      className: error.className,
      message: error.message,
      code: error.status,
      data: { ...error.data, reason: error.reason, requestId: reply.request.id },
    });
}

/** Ajv's messages in words: a pattern or a format is never echoed (`must match pattern "^[\x21-…"`). */
function problemMessage(issue: { keyword: string; message?: string; params: Record<string, unknown> }): string {
  const limit = issue.params['limit'];
  switch (issue.keyword) {
    case 'pattern':
    case 'format':
      return 'is not in the expected form';
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${String(limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(limit)} characters`;
    case 'type':
      return `must be a ${String(issue.params['type'])}`;
    case 'enum':
      return `must be one of ${String((issue.params['allowedValues'] as unknown[] | undefined)?.join(', ') ?? 'the listed values')}`;
    default:
      return issue.message ?? 'is invalid';
  }
}

/** Ajv's report of a schema violation, turned into `{path, message}` naming the field. */
function fieldProblems(error: FastifyError): FieldProblem[] {
  return (error.validation ?? []).map((issue) => {
    const base = issue.instancePath || '';
    const missing = (issue.params as { missingProperty?: string }).missingProperty;
    const extra = (issue.params as { additionalProperty?: string }).additionalProperty;
    const field = missing ?? extra;
    const path = field === undefined ? base : `${base}/${field}`;
    // One path style: a JSON Pointer, into the body or into the query parameters (`/customerId`).
    const where = path || '/';
    const message =
      extra !== undefined ? 'is not allowed' : missing !== undefined ? 'is required' : problemMessage(issue);
    return { path: where, message };
  });
}

/** Framework errors (validation, parsing, limits) in the model; `undefined` for what nobody expected. */
function fromFrameworkError(error: FastifyError, format: 'oauth' | 'envelope'): ApiError | undefined {
  const status = error.statusCode ?? 500;
  // The OAuth endpoints say one thing of any request the framework refuses.
  if (format === 'oauth') return status >= 400 && status < 500 ? invalidRequest('the request is malformed') : undefined;
  if (error.validation) return invalidRequest('invalid request', { problems: fieldProblems(error) });
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidRequest('body is not valid JSON', { problems: [{ path: '/', message: 'must be a JSON object' }] });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidRequest('unsupported request body', {
        problems: [{ path: '/', message: 'must be sent as application/json (Content-Type)' }],
      });
  }
  if (status === 413) return payloadTooLarge();
  if (status >= 400 && status < 500) return invalidRequest('bad request');
  return undefined;
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const format = request.routeOptions.config?.errorFormat ?? 'envelope';
    const known =
      error instanceof ApiError
        ? error
        : error instanceof DatabaseUnavailable
          ? fromDatabaseFailure(error)
          : error instanceof KeyCustodyUnavailable
            ? unavailable('the service is temporarily unavailable', error.detail, error.retryAfterSeconds)
            : fromFrameworkError(error, format);
    const caller = format === 'oauth' ? {} : callerOf(request);
    const answer = known ?? internalError();
    // One log line per refusal, with the code the answer and the audit row carry; the cause in `err`.
    if (!known) {
      request.log.error({ code: answer.code, err: error, ...caller }, 'unexpected error');
    } else if (answer.status >= 500) {
      // The core or the database failing is the operator's concern, not the caller's mistake.
      request.log.warn({ code: answer.code, err: { detail: answer.detail }, ...caller }, 'upstream failure');
    } else {
      request.log.info(
        { code: answer.code, err: { detail: answer.detail }, ...caller },
        format === 'oauth' ? 'oauth request refused' : 'request refused',
      );
    }
    return format === 'oauth' ? sendOAuthError(reply, answer) : sendEnvelopeError(reply, answer);
  });

  const routes = knownRoutes(app);
  app.setNotFoundHandler((request, reply) => {
    // A known path with a method it does not take is a 405 naming the methods it does
    // take, for every route: derived from the registered routes.
    const known = routes.find(request.url);
    if (known) return sendMethodNotAllowed(reply, [...known.methods].sort().join(', '), known.errorFormat);
    return sendEnvelopeError(reply, routeNotFound());
  });
}

interface KnownPath {
  readonly pattern: RegExp;
  readonly methods: Set<string>;
  errorFormat: 'oauth' | 'envelope';
}

/**
 * Every registered route's methods by path, collected as routes are added (so a
 * route another module registers later takes part without a list to keep).
 * Parameters (`:id`) and wildcards (`*`) match one segment and the rest.
 */
function knownRoutes(app: FastifyInstance): { find(url: string): KnownPath | undefined } {
  const byUrl = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    const url = route.url ?? route.path;
    let known = byUrl.get(url);
    if (!known) {
      const source = url
        .split('/')
        .map((segment) =>
          segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/');
      known = { pattern: new RegExp(`^${source}/?$`), methods: new Set(), errorFormat: 'envelope' };
      byUrl.set(url, known);
    }
    const methods = [route.method].flat();
    for (const method of methods) known.methods.add(method);
    // Fastify serves HEAD for each GET route (unless that route says not to) without an onRoute call of its own.
    if (methods.includes('GET') && route.exposeHeadRoute !== false) known.methods.add('HEAD');
    if (route.config?.errorFormat === 'oauth') known.errorFormat = 'oauth';
  });
  return {
    find(url) {
      const path = url.split('?')[0] ?? url;
      for (const known of byUrl.values()) if (known.pattern.test(path)) return known;
      return undefined;
    },
  };
}

function sendMethodNotAllowed(
  reply: FastifyReply,
  allow: string,
  format: 'oauth' | 'envelope' | undefined,
): FastifyReply {
  const error = wrongMethod(allow);
  return format === 'oauth' ? sendOAuthError(reply, error) : sendEnvelopeError(reply, error);
}
