/**
 * Tracing settings (docs/operations.md#observability): OpenTelemetry's standard `OTEL_*`
 * variables, validated at start like every setting — a bad value stops the process with one
 * line naming the variable, and never quotes a collector header (it may be an API key).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { unknownSettings } from '../../src/config/unknown-settings.js';

function refused(env: Record<string, string>, variable: string, reason: RegExp): ConfigError {
  let caught: unknown;
  assert.throws(
    () => loadConfig(env, '/srv/coregate'),
    (error: unknown) => ((caught = error), true),
  );
  assert.ok(caught instanceof ConfigError, String(caught));
  assert.equal(caught.variable, variable);
  assert.match(caught.message, reason);
  assert.ok(!caught.message.includes('\n'));
  return caught;
}

describe('tracing settings', () => {
  it('leaves tracing off without an endpoint, whatever else is set', () => {
    assert.equal(loadConfig({}).tracing, undefined);
    assert.equal(loadConfig({ OTEL_SERVICE_NAME: 'gw', OTEL_TRACES_SAMPLER: 'always_on' }).tracing, undefined);
  });

  it('sends traces to {endpoint}/v1/traces, or to the traces endpoint as written, with the defaults', () => {
    const general = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing;
    assert.deepEqual(general, {
      tracesUrl: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'coregate',
      resourceAttributes: {},
      sampler: 'always_on',
      samplerRatio: 1,
    });
    const own = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
    }).tracing;
    assert.equal(own?.tracesUrl, 'https://traces.example/otlp');
  });

  it('reads headers and resource attributes as percent-encoded name=value lists, and the sampler', () => {
    const tracing = loadConfig({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s3cr%3Dt, x-tenant=bank',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,service.namespace=gw%20eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).tracing;
    assert.equal(tracing?.protocol, 'http/json');
    assert.deepEqual(tracing?.headers, { 'api-key': 's3cr=t', 'x-tenant': 'bank' });
    assert.deepEqual(tracing?.resourceAttributes, {
      'deployment.environment.name': 'prod',
      'service.namespace': 'gw eu',
    });
    assert.equal(tracing?.sampler, 'parentbased_traceidratio');
    assert.equal(tracing?.samplerRatio, 0.25);
  });

  it('names each bad value at start', () => {
    refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT', /http: or https:/);
    refused({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL', /http\/protobuf, http\/json/);
    refused({ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER', /must be one of/);
    refused({ OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'OTEL_TRACES_SAMPLER_ARG', /from 0 to 1/);
    refused({ OTEL_RESOURCE_ATTRIBUTES: 'novalue' }, 'OTEL_RESOURCE_ATTRIBUTES', /entry 1/);
    const error = refused(
      { OTEL_EXPORTER_OTLP_HEADERS: 'api-key=secret-value%zz' },
      'OTEL_EXPORTER_OTLP_HEADERS',
      /entry 1 has a value that is not percent-encoded/,
    );
    assert.ok(!error.message.includes('secret-value'), 'a header value is never quoted');
    refused({ OTEL_EXPORTER_OTLP_HEADERS: 'bad name=x' }, 'OTEL_EXPORTER_OTLP_HEADERS', /valid name/);
  });

  it('are settings, not unknown variables', () => {
    assert.deepEqual(unknownSettings({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), []);
  });
});
