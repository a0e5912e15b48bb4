/**
 * The load generator: a child process of the suite, pinned to the load CPU,
 * taking commands over IPC. `load` runs autocannon for a while and reports
 * throughput, latency percentiles (recorded here in microseconds: autocannon's
 * own histogram has whole-millisecond resolution) and status codes. `storm`
 * fires many requests at once on connections opened beforehand.
 */
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { requestGenerator } from './request-bodies.mjs';

function percentiles(histogram) {
  const at = (p) => histogram.percentile(p) / 1000;
  return {
    mean: histogram.count ? histogram.mean / 1000 : 0,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    p999: at(99.9),
    max: histogram.count ? histogram.max / 1000 : 0,
  };
}

/** Body generators by name: a warm-up and the measured run after it go on with new customers. */
const generators = new Map();

function generatorFor(spec) {
  const key = `${spec.kind}:${spec.tag}`;
  if (!generators.has(key)) generators.set(key, requestGenerator(spec));
  return generators.get(key);
}

function load(spec) {
  return new Promise((resolve, reject) => {
    const histogram = createHistogram();
    const statusCodes = {};
    let responses = 0;
    const generator = spec.generator ? generatorFor(spec.generator) : undefined;
    const request = { method: spec.method ?? 'GET', path: spec.path };
    if (spec.headers) request.headers = spec.headers;
    if (spec.body !== undefined) request.body = spec.body;
    if (generator) request.setupRequest = (req) => ({ ...req, body: generator() });
    const started = process.hrtime.bigint();
    const instance = autocannon(
      {
        url: spec.origin,
        connections: spec.connections ?? 50,
        duration: spec.seconds,
        requests: [request],
        timeout: 10,
      },
      (error, result) => {
        if (error) {
          reject(error);
          return;
        }
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        let non2xx = 0;
        for (const [code, count] of Object.entries(statusCodes)) if (code < 200 || code >= 300) non2xx += count;
        resolve({
          responses,
          seconds,
          requestsPerSecond: responses / seconds,
          latencyMs: percentiles(histogram),
          statusCodes,
          non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          resets: result.resets ?? 0,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      responses += 1;
      statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
      histogram.record(Math.max(1, Math.round(responseTimeMs * 1000)));
    });
  });
}

let stormPool;

async function oneRequest(pool, spec) {
  const started = process.hrtime.bigint();
  try {
    const { statusCode, body } = await pool.request({ path: spec.path, method: spec.method ?? 'GET', headers: spec.headers });
    const text = await body.text();
    return { statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6, matches: spec.expectBody === undefined || text === spec.expectBody };
  } catch (error) {
    return { statusCode: 0, ms: Number(process.hrtime.bigint() - started) / 1e6, matches: false, error: error.code ?? error.message };
  }
}

/** Opens `connections` kept-alive connections by sending that many requests at once. */
async function stormPrepare(spec) {
  await stormPool?.destroy();
  stormPool = new Pool(spec.origin, { connections: spec.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const answers = await Promise.all(Array.from({ length: spec.connections }, () => oneRequest(stormPool, spec)));
  return { connected: stormPool.stats.connected, statuses: answers.map((answer) => answer.statusCode) };
}

/** `count` requests at once; the latency of each, in milliseconds. */
async function storm(spec) {
  const answers = await Promise.all(Array.from({ length: spec.count }, () => oneRequest(stormPool, spec)));
  const statusCodes = {};
  for (const answer of answers) statusCodes[answer.statusCode] = (statusCodes[answer.statusCode] ?? 0) + 1;
  return {
    latenciesMs: answers.map((answer) => answer.ms),
    statusCodes,
    mismatches: answers.filter((answer) => !answer.matches).length,
    errors: answers.filter((answer) => answer.error).map((answer) => answer.error),
    connected: stormPool.stats.connected,
  };
}

const commands = { load, stormPrepare, storm };

process.on('message', async (message) => {
  if (message.cmd === 'exit') {
    await stormPool?.destroy();
    process.disconnect();
    return;
  }
  try {
    const result = await commands[message.cmd](message.spec);
    process.send({ id: message.id, ok: true, result });
  } catch (error) {
    process.send({ id: message.id, ok: false, error: error.stack ?? String(error) });
  }
});
process.send({ ready: true });
