/** Tracing (docs/operations.md#observability): the OpenTelemetry SDK, only when an OTLP endpoint is configured. */
import type { PrometheusMetrics } from '../../adapters/metrics/prometheus.js';
import { startTracing, type Tracing } from '../../adapters/tracing/open-telemetry.js';
import { PACKAGE_INFO } from '../../config/package-info.js';
import type { Basics } from './basics.js';

/** Starts exporting traces, its losses counted in `metrics`; `undefined` (nothing loaded) when tracing is off. */
export async function buildTracing(
  { config, logger }: Basics,
  { metrics }: { readonly metrics: PrometheusMetrics },
): Promise<Tracing | undefined> {
  if (config.tracing === undefined) return undefined;
  return startTracing(config.tracing, {
    logger,
    version: PACKAGE_INFO.version,
    spansDropped: (count, reason) => metrics.traceSpansDropped(count, reason),
  });
}
