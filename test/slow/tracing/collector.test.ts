/**
 * The collector's side of tracing (docs/operations.md#observability): spans in OTLP/protobuf,
 * the default encoding, decode to the request's span; a collector that refuses connections or
 * never answers costs the requests nothing (the export runs beside them, its queue bounded),
 * and what it lost is counted in `coregate_trace_spans_dropped_total`.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { freePort } from '../../support/free-port.js';
import { OtlpReceiver, SPAN_KIND } from '../../support/otlp-receiver.js';

const backend = QUICKEST_BACKEND;
/**
 * How long one export request waits for the collector (src/adapters/tracing/open-telemetry.ts):
 * a request that waited for a collector that never answers would take at least this long.
 */
const EXPORT_TIMEOUT_MS = 10_000;

function dropped(metrics: string): number {
  return [...metrics.matchAll(/^coregate_trace_spans_dropped_total\{[^}]*\} (\d+)/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

describe(`tracing: OTLP/protobuf to a collector (${backend.name})`, { skip: backend.skip }, () => {
  let h: Harness;
  let collector: OtlpReceiver;
  before(async () => {
    collector = await new OtlpReceiver().start();
    // The general endpoint: the traces go to its /v1/traces.
    const base = collector.url.replace(/\/v1\/traces$/, '');
    h = await createHarness(backend, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: base } });
  });
  after(async () => {
    await h?.close();
    await collector?.close();
  });

  it('exports the request span in protobuf to {endpoint}/v1/traces', async () => {
    const client = await h.client({ platform: 'proto' });
    await h.token(client);
    await h.services.tracing!.flush();
    assert.match(String(collector.headers[0]?.['content-type']), /application\/x-protobuf/);
    const span = collector.spans.find((candidate) => candidate.name === 'POST /oauth2/token');
    assert.ok(span, collector.spans.map((candidate) => candidate.name).join(', '));
    assert.equal(span.kind, SPAN_KIND.server);
    assert.match(span.traceId, /^[0-9a-f]{32}$/);
    assert.equal(span.attributes['http.response.status_code'], 200);
    assert.equal(span.resource['service.name'], 'coregate');
  });
});

for (const fault of ['refuses connections', 'accepts and never answers'] as const) {
  describe(`tracing: a collector that ${fault} (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let blackhole: Server | undefined;
    const held: Socket[] = [];
    before(async () => {
      let port: number;
      if (fault === 'refuses connections') {
        port = await freePort();
      } else {
        blackhole = createServer((socket) => void held.push(socket));
        await new Promise<void>((resolve) => blackhole!.listen(0, '127.0.0.1', resolve));
        port = (blackhole.address() as { port: number }).port;
      }
      h = await createHarness(backend, {
        env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces` },
      });
    });
    after(async () => {
      for (const socket of held) socket.destroy();
      blackhole?.close();
      await h?.close();
    });

    it('answers every request at once and counts the spans it could not export', { timeout: 60_000 }, async () => {
      const client = await h.client({ platform: 'lost' });
      let slowest = 0;
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        await h.token(client);
        slowest = Math.max(slowest, performance.now() - started);
      }
      // Each answered before one export could have given up: none waited for the collector.
      assert.ok(slowest < EXPORT_TIMEOUT_MS, `the slowest request took ${Math.round(slowest)} ms`);
      if (fault === 'refuses connections') {
        // Spans are counted once their export failed. An export the processor started on its own
        // schedule (every 2 s: twenty requests on a loaded machine can outlast that) is not one a
        // flush waits for, so the count is waited for, flushing what is still queued each time.
        let metrics = await h.services.metrics.render();
        while (dropped(metrics) < 20) {
          await h.services.tracing!.flush();
          await new Promise((resolve) => setTimeout(resolve, 20));
          metrics = await h.services.metrics.render();
        }
        assert.ok(dropped(metrics) >= 20);
      }
    });
  });
}
