/**
 * One server span per request (docs/operations.md#observability), installed only when tracing
 * is on: it continues the caller's W3C `traceparent` (a malformed one starts a new trace, it is
 * never refused), is named after the route pattern, and is active while the request's hooks and
 * handler run, so the spans they start (core calls, database statements, token signing) are its
 * children and their log lines carry its `trace_id` and `span_id`.
 *
 * Attributes: `http.request.method`, `http.route` (the pattern, never the URL: a query holds a
 * customerId), `http.response.status_code`, `coregate.institution` and `coregate.platform` once
 * the caller is known, and `coregate.error.code` (docs/errors.md) on an error answer. The
 * operations endpoints (probes, scrapes) are not traced.
 *
 * Fastify runs a phase's hooks one after the other from the previous hook's `done`, so entering
 * the span's context in the first hook of a phase holds for the rest of it. The phases that start
 * from a stream event rather than from the previous phase (after the body is read; the answer
 * finished) are entered again.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { markFailed, startRequestSpan, withRequestTrace, type RequestTrace } from '../../ports/tracing.js';
import { OPS_PATHS } from '../routes/ops/ops-routes.js';
import { answeredError } from './error-handler.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span; null when the request is not traced. */
    requestTrace: RequestTrace | null;
  }
}

function reenter(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const traced = request.requestTrace;
  if (traced === null) done();
  else withRequestTrace(traced, done);
}

/** Installs the server spans; call before any other hook is added, so its hooks run first. */
export function installTracing(app: FastifyInstance): void {
  app.decorateRequest('requestTrace', null);
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && OPS_PATHS.has(route)) return done();
    const traced = startRequestSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      request.headers,
      {
        'http.request.method': request.method,
        ...(route === undefined ? {} : { 'http.route': route }),
      },
    );
    request.requestTrace = traced;
    withRequestTrace(traced, done);
  });
  app.addHook('preValidation', reenter);
  app.addHook('preHandler', reenter);
  app.addHook('onResponse', (request, reply, done) => {
    const traced = request.requestTrace;
    if (traced === null) return done();
    const { span } = traced;
    span.setAttribute('http.response.status_code', reply.statusCode);
    const caller = request.principal ?? request.oauthClient;
    if (caller) {
      span.setAttribute('coregate.institution', caller.institution);
      span.setAttribute('coregate.platform', caller.platform);
    }
    const error = reply.statusCode >= 400 ? answeredError(request) : undefined;
    const code = error?.code ?? (reply.statusCode >= 400 ? `http_${reply.statusCode}` : undefined);
    if (code !== undefined) span.setAttribute('coregate.error.code', code);
    // A server span is an error only for a failure of the server (OpenTelemetry's HTTP conventions).
    if (reply.statusCode >= 500) markFailed(span, code ?? String(reply.statusCode));
    span.end();
    // The request's own log line (plugins/request-log.ts) is written after this hook, in the span.
    withRequestTrace(traced, done);
  });
}
