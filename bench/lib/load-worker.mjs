/**
 * The load generator: a child process of the suite, pinned to the load CPU,
 * taking commands over IPC. `load` runs autocannon for a while (closed loop:
 * each connection sends its next request when the answer came) and reports
 * throughput, latency percentiles (recorded here in microseconds: autocannon's
 * own histogram has whole-millisecond resolution) and status codes; given a
 * `rate`, it runs the paced open loop below instead. `storm` fires many
 * requests at once on connections opened beforehand.
 */
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { dpopProofs } from './dpop.mjs';
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

/** What every load reports: throughput, latency percentiles and status codes (non-2xx counted). */
function loadFigures({ responses, seconds, histogram, statusCodes }) {
  let non2xx = 0;
  for (const [code, count] of Object.entries(statusCodes)) if (code < 200 || code >= 300) non2xx += count;
  return {
    responses,
    seconds,
    requestsPerSecond: responses / seconds,
    latencyMs: percentiles(histogram),
    statusCodes,
    non2xx,
  };
}

/** Body generators by name: a warm-up and the measured run after it go on with new customers. */
const generators = new Map();

function generatorFor(spec) {
  const key = `${spec.kind}:${spec.tag}`;
  if (!generators.has(key)) generators.set(key, requestGenerator(spec));
  return generators.get(key);
}

/**
 * Latency histograms that several runs add to (`spec.accumulate` names one): the rounds of a
 * paired measurement (`measure.mjs`) are one figure, with percentiles of all their requests.
 */
const accumulated = new Map();

function accumulate(spec, histogram) {
  if (!spec.accumulate) return {};
  let total = accumulated.get(spec.accumulate);
  if (!total) accumulated.set(spec.accumulate, (total = createHistogram()));
  total.add(histogram);
  return { accumulatedLatencyMs: percentiles(total) };
}

/**
 * DPoP proofs (`spec.dpop`), one per request, signed before the load starts: by `prepare`,
 * called before the suite's CPU snapshots, or else at the start of `load`. A proof's `iat`
 * must be within a minute of coregate's clock, so a batch serves one load only. How many a
 * load needs is guessed from the fastest load with that tag so far, twice over; when a batch
 * runs low anyway, more are signed during the load (`dpopSignedDuringLoad`). A request that
 * finds none left goes without one and is refused (401): counted in `dpopMissing`, and those
 * refusals count towards coregate's bearer-failure throttle.
 */
const dpopRates = new Map();
const preparedProofs = new Map();
const DPOP_FIRST_GUESS_RPS = 3000;

async function prepare(spec) {
  const rate = Math.max(DPOP_FIRST_GUESS_RPS, dpopRates.get(spec.dpop.tag) ?? 0);
  // Each connection builds its first request when autocannon starts, whether it is sent or not.
  const count = Math.ceil(rate * spec.seconds * 2) + 2 * (spec.connections ?? 50) + 200;
  const proofs = await dpopProofs(spec.dpop, count);
  preparedProofs.set(spec.dpop.tag, proofs);
  return { proofs: proofs.length };
}

async function proofSupply(spec) {
  if (!preparedProofs.has(spec.dpop.tag)) await prepare(spec);
  const proofs = preparedProofs.get(spec.dpop.tag);
  preparedProofs.delete(spec.dpop.tag);
  // Topped up when a quarter of the batch is left, by half a batch.
  const lowWater = Math.ceil(proofs.length / 4);
  const refill = Math.ceil(proofs.length / 2);
  let next = 0;
  let refilling = false;
  const supply = {
    signedDuringLoad: 0,
    missing: 0,
    next() {
      if (proofs.length - next < lowWater && !refilling) {
        refilling = true;
        dpopProofs(spec.dpop, refill).then((more) => {
          proofs.push(...more);
          supply.signedDuringLoad += more.length;
          refilling = false;
        });
      }
      if (next >= proofs.length) supply.missing += 1;
      return proofs[next++];
    },
  };
  return supply;
}

async function load(spec) {
  const dpop = spec.dpop ? await proofSupply(spec) : undefined;
  return new Promise((resolve, reject) => {
    const histogram = createHistogram();
    const statusCodes = {};
    let responses = 0;
    const generator = spec.generator ? generatorFor(spec.generator) : undefined;
    const request = { method: spec.method ?? 'GET', path: spec.path };
    if (spec.headers) request.headers = spec.headers;
    if (spec.body !== undefined) request.body = spec.body;
    if (generator) request.setupRequest = (req) => ({ ...req, body: generator() });
    if (dpop) request.setupRequest = (req) => ({ ...req, headers: { ...req.headers, dpop: dpop.next() } });
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
        if (dpop) dpopRates.set(spec.dpop.tag, Math.max(dpopRates.get(spec.dpop.tag) ?? 0, responses / seconds));
        resolve({
          ...(dpop ? { dpopSignedDuringLoad: dpop.signedDuringLoad, dpopMissing: dpop.missing } : {}),
          ...loadFigures({ responses, seconds, histogram, statusCodes }),
          ...accumulate(spec, histogram),
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

/** Pool connections of a paced run: enough that a request never waits for one unless the server has stalled. */
const PACED_CONNECTIONS = 64;
const PACED_TIMEOUT_MS = 10_000;

/**
 * Open loop at a fixed rate: request i starts at i / rate seconds, whether the
 * earlier ones have been answered or not, on a free connection of an undici Pool
 * (a request that finds every connection busy waits for one, and that wait is in
 * its latency). A slow answer never delays the next request (no coordinated
 * omission). Latency counts from the moment the request is handed to the pool;
 * how late this process's timer fired against the schedule (about a
 * millisecond normally: timers tick by the millisecond) is reported beside it,
 * so that a load generator that could not keep the pace is seen.
 *
 * Not autocannon's `overallRate`: it lets each connection send its share of a
 * second back to back and then wait for the next second, so "1,000 req/s" on 50
 * connections arrives as bursts of 50 concurrent requests in the first half of
 * every second — closed-loop latency, not what a user at that rate sees.
 */
async function paced(spec) {
  const pool = new Pool(spec.origin, {
    connections: PACED_CONNECTIONS,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: PACED_TIMEOUT_MS,
    bodyTimeout: PACED_TIMEOUT_MS,
  });
  const histogram = createHistogram();
  const lag = createHistogram();
  const statusCodes = {};
  const generator = spec.generator ? generatorFor(spec.generator) : undefined;
  let responses = 0;
  let errors = 0;
  let timeouts = 0;
  const intervalNs = 1e9 / spec.rate;
  const total = Math.round(spec.rate * spec.seconds);
  const started = process.hrtime.bigint();
  const pending = new Set();
  let abandoned = false;
  const fire = () => {
    const sentAt = process.hrtime.bigint();
    const request = pool
      .request({
        path: spec.path,
        method: spec.method ?? 'GET',
        headers: spec.headers,
        body: generator ? generator() : spec.body,
      })
      .then(async ({ statusCode, body }) => {
        await body.dump();
        responses += 1;
        statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
        histogram.record(Math.max(1, Math.round(Number(process.hrtime.bigint() - sentAt) / 1000)));
      })
      .catch((error) => {
        if (abandoned) return;
        if (error.code === 'UND_ERR_HEADERS_TIMEOUT' || error.code === 'UND_ERR_BODY_TIMEOUT') timeouts += 1;
        else errors += 1;
      })
      .finally(() => pending.delete(request));
    pending.add(request);
  };
  let sent = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const now = Number(process.hrtime.bigint() - started);
      while (sent < total && sent * intervalNs <= now) {
        const scheduled = sent * intervalNs;
        lag.record(Math.max(1, Math.round((now - scheduled) / 1000)));
        fire();
        sent += 1;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  // A server that did not keep up has a queue: it gets this long to work through it, no longer,
  // so that one slow figure does not hold the run for minutes. What is left is reported as unanswered.
  const graceMs = Math.min(PACED_TIMEOUT_MS, Math.max(2000, spec.seconds * 1000));
  let graceTimer;
  await Promise.race([
    Promise.all([...pending]),
    new Promise((resolve) => (graceTimer = setTimeout(resolve, graceMs))),
  ]);
  clearTimeout(graceTimer);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const unanswered = pending.size;
  abandoned = true;
  await pool.destroy();
  await Promise.all([...pending]);
  return {
    ...loadFigures({ responses, seconds, histogram, statusCodes }),
    errors,
    timeouts,
    resets: 0,
    unanswered,
    schedulerLagMs: { p50: lag.percentile(50) / 1000, p99: lag.percentile(99) / 1000, max: lag.max / 1000 },
  };
}

let stormPool;

async function oneRequest(pool, spec) {
  const started = process.hrtime.bigint();
  try {
    const { statusCode, body } = await pool.request({
      path: spec.path,
      method: spec.method ?? 'GET',
      headers: spec.headers,
    });
    const text = await body.text();
    return {
      statusCode,
      ms: Number(process.hrtime.bigint() - started) / 1e6,
      matches: spec.expectBody === undefined || text === spec.expectBody,
    };
  } catch (error) {
    return {
      statusCode: 0,
      ms: Number(process.hrtime.bigint() - started) / 1e6,
      matches: false,
      error: error.code ?? error.message,
    };
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

const commands = { load: (spec) => (spec.rate ? paced(spec) : load(spec)), prepare, stormPrepare, storm };

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
