/**
 * OpenTelemetry's own variables, under their standard names so a collector's usual set-up applies
 * as written: tracing is off unless an endpoint is set (docs/operations.md#observability). Part of
 * the one configuration schema (`schema.ts`), kept here to keep that file readable.
 */
import { Type } from '@sinclair/typebox';
import './setting-formats.js';

export const TRACING_SETTINGS = {
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    Type.String({
      format: 'http-url',
      defaultText: 'unset → tracing off',
      description:
        'OpenTelemetry collector (OTLP/HTTP, usually port 4318): traces go to `{this}/v1/traces`; unset (and no `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`): no tracing at all',
    }),
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.Optional(
    Type.String({
      format: 'http-url',
      defaultText: 'unset',
      description: 'the full URL traces are sent to, used as written; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`',
    }),
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: Type.Union([Type.Literal('http/protobuf'), Type.Literal('http/json')], {
    default: 'http/protobuf',
    description: 'how traces are encoded for the collector (gRPC is not offered)',
  }),
  OTEL_EXPORTER_OTLP_HEADERS: Type.Optional(
    Type.String({
      format: 'otlp-headers',
      description:
        'headers sent to the collector (its API key, say), `name=value` pairs separated by commas, values percent-encoded; a secret: never logged',
    }),
  ),
  OTEL_SERVICE_NAME: Type.String({
    default: 'coregate',
    description: 'the `service.name` of the traces',
  }),
  OTEL_RESOURCE_ATTRIBUTES: Type.Optional(
    Type.String({
      format: 'otel-attributes',
      description:
        'more attributes of the service in every trace (`deployment.environment.name=prod,service.namespace=bank`), `key=value` pairs separated by commas, values percent-encoded',
    }),
  ),
  OTEL_TRACES_SAMPLER: Type.Union(
    [
      Type.Literal('parentbased_always_on'),
      Type.Literal('parentbased_always_off'),
      Type.Literal('parentbased_traceidratio'),
      Type.Literal('always_on'),
      Type.Literal('always_off'),
      Type.Literal('traceidratio'),
    ],
    {
      default: 'always_on',
      description:
        "which requests are traced: `always_on` records every incoming request, whatever the caller's `traceparent` says (a platform is outside the bank's trust boundary); `parentbased_*` follow the caller's sampling decision when there is one; `traceidratio` samples the share `OTEL_TRACES_SAMPLER_ARG` of traces",
    },
  ),
  OTEL_TRACES_SAMPLER_ARG: Type.Optional(
    Type.String({
      format: 'sampling-ratio',
      defaultText: '`1` for the ratio samplers',
      description: 'the share of traces sampled by the `*traceidratio` samplers, from 0 to 1',
    }),
  ),
};
