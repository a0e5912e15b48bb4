/**
 * The OpenTelemetry SDK, installed only when an OTLP endpoint is configured
 * (docs/operations.md#observability): its modules are imported here, on demand, so a
 * server without tracing never loads them. Spans go out in batches from a bounded queue
 * (`BatchSpanProcessor`): an unreachable or slow collector never holds a request — what does
 * not fit, or fails to export, is dropped, counted (`coregate_trace_spans_dropped_total`) and
 * logged at most once a minute.
 *
 * `@opentelemetry/sdk-trace` rather than `sdk-trace-base`: the latter is the same code with
 * fallbacks to `OTEL_*` variables read behind the configuration's back; here every setting
 * comes from the validated configuration (`config/config.ts` `TracingConfig`).
 */
import {
  context,
  createNoopMeter,
  propagation,
  trace,
  type Attributes,
  type Counter,
  type Meter,
  type MeterProvider,
} from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { TracingConfig } from '../../config/config.js';
import { disableTracing, enableTracing } from '../../ports/tracing.js';

/** The tracing of this process, once started. */
export interface Tracing {
  /** Exports what is queued now; a failed export counts its spans as dropped and does not throw. */
  flush(): Promise<void>;
  /** Exports what is queued (within a few seconds) and uninstalls the SDK. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  readonly logger: Logger;
  /** Spans lost: the queue was full (`queue_full`) or an export failed (the error's name). */
  readonly spansDropped: (count: number, reason: string) => void;
  /** The service's version, for the `service.version` resource attribute. */
  readonly version: string;
}

/** Spans held for export at most; past it new spans are dropped rather than memory grown. */
const MAX_QUEUE_SPANS = 2048;
const EXPORT_BATCH_SPANS = 512;
const EXPORT_EVERY_MS = 2000;
/** One export request to the collector gives up after this. */
const EXPORT_TIMEOUT_MS = 10_000;
const DROPPED_LOG_EVERY_MS = 60_000;
/** What a shutdown waits at most for the last spans to be exported. */
const SHUTDOWN_EXPORT_MS = 2000;
/** The SDK's own counter of finished spans, with `error.type` when they were lost (OpenTelemetry semantic conventions). */
const PROCESSED_SPANS = 'otel.sdk.processor.span.processed';

/** The one tracing of the process: the SDK registers itself globally. */
let running: Promise<Tracing> | undefined;

/** Installs the SDK as the process's tracer; a second call gets the first one's handle. */
export function startTracing(config: TracingConfig, options: TracingOptions): Promise<Tracing> {
  running ??= install(config, options);
  return running;
}

async function install(config: TracingConfig, options: TracingOptions): Promise<Tracing> {
  const [sdk, { resourceFromAttributes }, { W3CTraceContextPropagator }, { AsyncLocalStorageContextManager }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
      import('@opentelemetry/context-async-hooks'),
    ]);
  const { OTLPTraceExporter } =
    config.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  const exporter = new OTLPTraceExporter({
    url: config.tracesUrl,
    headers: { ...config.headers },
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const ratio = new sdk.TraceIdRatioBasedSampler(config.samplerRatio);
  const root = {
    always_on: new sdk.AlwaysOnSampler(),
    always_off: new sdk.AlwaysOffSampler(),
    traceidratio: ratio,
  };
  const sampler = config.sampler.startsWith('parentbased_')
    ? new sdk.ParentBasedSampler({ root: root[config.sampler.slice('parentbased_'.length) as keyof typeof root] })
    : root[config.sampler as keyof typeof root];
  const processor = new sdk.BatchSpanProcessor({
    exporter,
    maxQueueSize: MAX_QUEUE_SPANS,
    maxExportBatchSize: EXPORT_BATCH_SPANS,
    scheduledDelayMillis: EXPORT_EVERY_MS,
    exportTimeoutMillis: EXPORT_TIMEOUT_MS,
    selfObsMeterProvider: droppedSpansMeter(options),
  });
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({
      ...config.resourceAttributes,
      'service.name': config.serviceName,
      'service.version': options.version,
    }),
    sampler,
    spanProcessors: [processor],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  enableTracing();
  // The URL only: its headers may hold the collector's API key.
  options.logger.info(
    { tracesUrl: withoutCredentials(config.tracesUrl), protocol: config.protocol, sampler: config.sampler },
    'tracing: spans are exported over OTLP/HTTP',
  );
  return {
    async flush() {
      await provider.forceFlush().catch(() => {});
    },
    async shutdown() {
      disableTracing();
      try {
        // Bounded: a collector that does not answer must not hold a shutdown (docs/behaviour.md#graceful-shutdown).
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_EXPORT_MS)));
        await Promise.race([provider.shutdown(), late]).finally(() => clearTimeout(timer));
      } catch (error) {
        options.logger.warn({ err: error }, 'tracing: the last spans could not be exported');
      } finally {
        trace.disable();
        propagation.disable();
        context.disable();
        running = undefined;
      }
    },
  };
}

function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  return parsed.toString();
}

/**
 * The batch processor reports what it lost on a meter of OpenTelemetry's metrics API (its
 * `selfObsMeterProvider`); this meter turns those reports into {@link TracingOptions.spansDropped}
 * and a warning at most once a minute, and ignores the SDK's other instruments. A bridge of a
 * few lines rather than the OpenTelemetry metrics SDK: coregate's metrics are Prometheus's.
 */
function droppedSpansMeter(options: TracingOptions): MeterProvider {
  let unlogged = 0;
  let loggedAt = -Infinity;
  const noop = createNoopMeter();
  const processed: Counter = {
    add(count: number, attributes?: Attributes) {
      const reason = attributes?.['error.type'];
      if (reason === undefined || count <= 0) return;
      options.spansDropped(count, String(reason));
      unlogged += count;
      const now = Date.now();
      if (now - loggedAt < DROPPED_LOG_EVERY_MS) return;
      options.logger.warn(
        { dropped: unlogged, reason: String(reason) },
        'tracing: spans were dropped (the collector is unreachable or slow, or the queue is full); requests are not affected',
      );
      loggedAt = now;
      unlogged = 0;
    },
  };
  const meter: Meter = Object.assign(Object.create(noop) as Meter, {
    createCounter: (name: string) => (name === PROCESSED_SPANS ? processed : noop.createCounter(name)),
  });
  return { getMeter: () => meter };
}
