/**
 * The one error handler. OAuth routes answer `{error, error_description}` (spec
 * §7.1); every other route answers the FeathersJS envelope (CONTRACT §3). What
 * the caller is told never includes a stack, a secret or what it sent; the real
 * cause is logged.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  BadRequest,
  DEFAULT_REASONS,
  GatewayError,
  GeneralError,
  InvalidRequest,
  MethodNotAllowed,
  NotFound,
  OAuthError,
  PayloadTooLarge,
  TooManyRequests,
  Unavailable,
  type FieldProblem,
} from '../../domain/errors.js';
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

export function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return noStore(reply)
    .code(error.status)
    .type(OAUTH_CONTENT_TYPE)
    .send({ error: error.error, error_description: error.description });
}

/**
 * The envelope. `data.reason` is a code a program may branch on (the error's own, else one per
 * status) and `data.requestId` the id a platform quotes to the bank's support (also `X-Request-Id`).
 */
export function sendEnvelopeError(reply: FastifyReply, error: GatewayError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  const reason = error.data['reason'] ?? error.reason ?? DEFAULT_REASONS[error.status] ?? `http_${error.status}`;
  return reply.code(error.status).send({
    name: error.name,
    className: error.className,
    message: error.message,
    code: error.status,
    data: { ...error.data, reason, requestId: reply.request.id },
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
    const message = extra !== undefined ? 'is not allowed' : missing !== undefined ? 'is required' : problemMessage(issue as never);
    return { path: where, message };
  });
}

/** Maps framework errors (validation, parsing, limits) to our public errors. */
function toGatewayError(error: FastifyError): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error.validation) return new BadRequest('invalid request', fieldProblems(error));
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLarge('request body is too large');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new BadRequest('body is not valid JSON', [{ path: '/', message: 'must be a JSON object' }]);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new BadRequest('unsupported request body', [{ path: '/', message: 'must be sent as application/json (Content-Type)' }]);
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return new PayloadTooLarge('request body is too large');
  if (status >= 400 && status < 500) return new BadRequest('bad request');
  return new GeneralError('internal error');
}

function toOAuthError(error: FastifyError): OAuthError | undefined {
  if (error instanceof OAuthError) return error;
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new InvalidRequest('the request is malformed');
  return undefined;
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const format = request.routeOptions.config?.errorFormat ?? 'envelope';
    const detail = (error as { detail?: string }).detail;
    if (format === 'oauth') {
      const oauth = toOAuthError(error);
      if (oauth) {
        request.log.info({ err: { type: oauth.error, detail } }, 'oauth request refused');
        return sendOAuthError(reply, oauth);
      }
      if (error instanceof TooManyRequests) {
        // A rate limit (README "Rate limits"): 429 with Retry-After, and an OAuth body whose code is
        // one of the spec's table 7.1 (RFC 6749 has no code of its own for this).
        request.log.info({ err: { type: error.name, detail: error.detail } }, 'oauth request rate-limited');
        for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
        return noStore(reply).code(429).type(OAUTH_CONTENT_TYPE).send({ error: 'invalid_request', error_description: 'too many requests, retry later' });
      }
      if (error instanceof Unavailable) {
        // RFC 6749 names this code for the authorization endpoint; it says the same here.
        request.log.warn({ err: { type: error.name, detail: error.detail } }, 'service unavailable');
        for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
        return noStore(reply).code(503).type(OAUTH_CONTENT_TYPE).send({ error: 'temporarily_unavailable' });
      }
      request.log.error({ err: error }, 'unexpected error');
      return noStore(reply).code(500).type(OAUTH_CONTENT_TYPE).send({ error: 'server_error' });
    }
    const gatewayError = toGatewayError(error);
    const caller = callerOf(request);
    if (gatewayError.status >= 500 && !(error instanceof GatewayError)) {
      request.log.error({ err: error, ...caller }, 'unexpected error');
    } else if (gatewayError.status >= 500) {
      // The core or the database failing is the operator's concern, not the caller's mistake.
      request.log.warn({ err: { type: gatewayError.name, detail: gatewayError.detail ?? detail }, ...caller }, 'upstream failure');
    } else {
      request.log.info({ err: { type: gatewayError.name, detail: gatewayError.detail ?? detail }, ...caller }, 'request refused');
    }
    return sendEnvelopeError(reply, gatewayError);
  });

  const routes = knownRoutes(app);
  app.setNotFoundHandler((request, reply) => {
    // A known path with a method it does not take is a 405 naming the methods it does
    // take (CONTRACT §3), for every route: derived from the registered routes.
    const known = routes.find(request.url);
    if (known) return sendMethodNotAllowed(reply, [...known.methods].sort().join(', '), known.errorFormat);
    // The path is not echoed: a caller may have put personal data in it.
    return sendEnvelopeError(reply, new NotFound('no such resource', {}, { reason: 'route_not_found' }));
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
        .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
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

function sendMethodNotAllowed(reply: FastifyReply, allow: string, format: 'oauth' | 'envelope' | undefined): FastifyReply {
  reply.header('allow', allow);
  if (format === 'oauth') {
    return noStore(reply).code(405).type(OAUTH_CONTENT_TYPE).send({ error: 'invalid_request', error_description: `use ${allow}` });
  }
  return sendEnvelopeError(reply, new MethodNotAllowed(`use ${allow}`));
}

/** 405 with `Allow` for a path that exists with other methods (a route may still register it by hand). */
export function methodNotAllowed(allow: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => sendMethodNotAllowed(reply, allow, request.routeOptions.config?.errorFormat);
}
