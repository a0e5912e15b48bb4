/**
 * 2c. The accounts hot path with OpenTelemetry tracing on, every request sampled, beside the same
 * read on a coregate without tracing, in rounds taken in turn: what tracing costs in CPU per read
 * (docs/operations.md#observability). The traced coregate exports OTLP/protobuf to a sink on
 * loopback that reads each export and answers 200, as a collector would. Both coregates share
 * the database, so this runs on PostgreSQL only (an embedded data dir has one process).
 */
import { createServer } from 'node:http';
import { measurePair, roundsNote } from '../lib/measure.mjs';
import { startCoregate } from '../lib/servers.mjs';
import { clientWithToken, prepareHotCustomer } from './accounts.mjs';

export const name = 'accounts-traced';

/** A traced read (every request sampled) costs at most this many times an untraced one's CPU. */
export const MAX_CPU_RATIO = 1.3;

export const onStorage = (_ctx, kind) => kind === 'postgres';

/** An OTLP/HTTP collector stand-in: reads each export whole and answers 200. */
async function startSink() {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    exports: () => exports,
    stop: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** coregate's GET /core/accounts with every request traced and without tracing, in turns. */
export async function measureCoregate(ctx, { coregate, accessToken, kind, peers, simulator, storage }) {
  const untraced = await prepareHotCustomer(ctx, coregate, accessToken);
  const sink = await startSink();
  const traced = await startCoregate(ctx, {
    storage,
    coreUrl: simulator.url,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'always_on' },
  });
  try {
    const { accessToken: tracedToken } = await clientWithToken(traced, 'bench accounts traced');
    const spec = await prepareHotCustomer(ctx, traced, tracedToken);
    ctx.log(`accounts-traced: coregate on ${kind} with every request traced, and one without tracing, in turns`);
    const pair = await measurePair(ctx, {
      subject: { server: traced, peers, spec },
      baseline: { server: coregate, peers, spec: untraced },
    });
    const row = ctx.results.addRow({
      scenario: 'accounts',
      variant: `${kind}, tracing on (every request sampled, OTLP/protobuf to a loopback sink)`,
      subject: 'coregate',
      measurement: pair.subject,
      notes: [roundsNote(pair), `${sink.exports()} exports received by the sink`],
    });
    const baselineRow = ctx.results.addRow({
      scenario: 'accounts',
      variant: `${kind}, tracing off, in turns with tracing on`,
      subject: 'coregate',
      baseline: true,
      measurement: pair.baseline,
    });
    ctx.results.compareCpu(row, baselineRow, {
      name: `accounts CPU µs/req, tracing on (all sampled) vs off (${kind})`,
      max: MAX_CPU_RATIO,
      label: 'of the untraced read',
    });
  } finally {
    await traced.stop();
    await sink.stop();
  }
}
