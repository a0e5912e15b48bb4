/**
 * Tracing as the rest of coregate sees it: spans started and the trace context passed on,
 * through OpenTelemetry's API package alone (`@opentelemetry/api`), which is a no-op until
 * the server installs the SDK (`adapters/tracing/open-telemetry.ts`, only when an OTLP
 * endpoint is configured: docs/operations.md#observability). Until then every helper here
 * returns after one flag test, so tracing turned off costs a request nothing it can measure.
 *
 * Attributes are identifiers and codes only: never a token, secret, proof, assertion, delegate
 * reference ID, personal field or customerId, and no URL with a query string.
 */
import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

export { SpanKind, type Attributes, type Span } from '@opentelemetry/api';

/** The instrumentation scope of every coregate span. */
let tracer = trace.getTracer('coregate');
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
/** What `work` is handed while no span is recorded: a span that ignores what is set on it. */
const NO_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

let enabled = false;

/** Called once the SDK is registered: from then on the helpers start spans. */
export function enableTracing(): void {
  // Asked again: the API's tracer keeps the provider it first found, and a provider may be installed again after a shutdown.
  tracer = trace.getTracer('coregate');
  enabled = true;
}

/** Called when the SDK is shut down: the helpers go back to doing nothing. */
export function disableTracing(): void {
  enabled = false;
}

/**
 * The W3C trace context headers (`traceparent`, and `tracestate` when there is one) of the
 * active span, for an outgoing request to carry: a core, a webhook receiver. Empty when
 * tracing is off or no span is active. Every connector that calls out adds these to its
 * headers.
 */
export function traceHeaders(): Readonly<Record<string, string>> {
  if (!enabled) return NO_HEADERS;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** Start the span only inside another one (a request's): background work makes none. */
  readonly childOnly?: boolean;
}

/**
 * Runs `work` inside a new span (the active one while it runs), ended when `work` settles;
 * a failure marks the span an error with `error.type`, the error's code or class name, never
 * its message (which may quote what it refused). Without tracing, just `work()`.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  if (!enabled || (options.childOnly === true && trace.getActiveSpan() === undefined)) return work(NO_SPAN);
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        markFailed(span, errorType(error));
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks `span` failed with `type` (a code or a class name). */
export function markFailed(span: Span, type: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', type);
}

/** A failure's kind for a span: a short code the error carries, else its class name. */
function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(name)) return name;
  }
  return 'Error';
}

/** A request's server span and the context it is active in. */
export interface RequestTrace {
  readonly span: Span;
  readonly context: Context;
}

/**
 * Starts the server span of an incoming request, continuing the caller's W3C `traceparent`
 * (W3C Trace Context §3.2) when it sent a well-formed one; a malformed one is
 * ignored and a new trace starts.
 *
 * The caller is outside the bank's trust boundary (docs/operations.md#observability): only its
 * `traceparent` is read. Its `tracestate` (W3C Trace Context §3.3) and `baggage` (W3C Baggage)
 * are never taken in, so nothing of them reaches the core, a webhook receiver or the collector.
 * Whether its `sampled` flag counts is the sampler's decision: by default it does not.
 */
export function startRequestSpan(
  name: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  attributes: Attributes,
): RequestTrace {
  const traceparent = headers['traceparent'];
  const parent = traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, { traceparent });
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `work` with `request`'s span active: what it starts (and logs) belongs to the request. */
export function withRequestTrace<T>(request: RequestTrace, work: () => T): T {
  return context.with(request.context, work);
}

/** The ids of the active span, for log lines; `undefined` outside any span. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
