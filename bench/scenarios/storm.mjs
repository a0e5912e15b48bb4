/**
 * 4. Renewal storm: 200 concurrent account calls for one customer whose core
 * session has just expired, repeated. Each storm must start exactly one core
 * session (counted by the simulator's /_sim/stats). Two ways to expire it:
 *
 * - `core rejects`: POST /_sim/sessions/expire — coregate still believes the
 *   session valid, the core answers 401 session_invalid, coregate renews once
 *   and retries (CONTRACT §4, "renew once and retry once");
 * - `expired by TTL`: a simulator with --session-ttl 2 and
 *   COREGATE_SESSION_SKEW_SECONDS=0; after each storm the suite waits until the
 *   renewed session has run out, so coregate sees it expired before calling.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createHistogram } from 'node:perf_hooks';
import { DEMO_CUSTOMERS } from '../../dist/src/fakes/core-simulator/demo-data.js';
import { checkAccounts, register } from '../lib/checks.mjs';
import { round } from '../lib/results.mjs';
import { startCoregate, startSimulator } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';
import { clientWithToken } from './accounts.mjs';

export const name = 'storm';
export const names = [name];
export const title = '4. Renewal storm';

const CUSTOMER = DEMO_CUSTOMERS[1];
const CONCURRENCY = 200;
const TTL_SECONDS = 2;

function summarise(latencies) {
  const histogram = createHistogram();
  for (const ms of latencies) histogram.record(Math.max(1, Math.round(ms * 1000)));
  return { p50: histogram.percentile(50) / 1000, p99: histogram.percentile(99) / 1000, max: histogram.max / 1000 };
}

async function stormVariant(ctx, variant) {
  const byTtl = variant === 'expired by TTL';
  const simulator = await startSimulator(ctx, byTtl ? { sessionTtlSeconds: TTL_SECONDS } : {});
  const storage = await freshStorage(ctx, ctx.primaryStorage, byTtl ? 'storm_ttl' : 'storm_expire');
  const coregate = await startCoregate(ctx, {
    storage,
    coreUrl: simulator.url,
    env: byTtl ? { COREGATE_SESSION_SKEW_SECONDS: '0' } : {},
  });
  try {
    const { accessToken } = await clientWithToken(coregate, 'bench storm');
    const customerId = 'bench-storm';
    await register(
      coregate.url,
      accessToken,
      { customer: { customerKey: CUSTOMER.customerKey }, registration: { customerId } },
      CUSTOMER.customerKey,
    );
    const path = `/core/accounts?customerId=${customerId}`;
    const headers = { authorization: `Bearer ${accessToken}` };
    const expectBody = await checkAccounts({
      what: `coregate GET ${path}`,
      url: `${coregate.url}${path}`,
      headers,
      expectedAccounts: CUSTOMER.accounts,
      pick: (json) => json.data,
    });
    const spec = { origin: coregate.url, path, headers, expectBody };
    // The same warm-up as every measured figure, so the storms meet a JIT-compiled server.
    await ctx.load.load({ origin: coregate.url, path, headers, seconds: ctx.durations.warmup });
    // Open the storm's connections first, so that a storm is 200 requests and not 200 connects.
    const prepared = await ctx.load.stormPrepare({ ...spec, connections: CONCURRENCY });
    if (prepared.connected < CONCURRENCY)
      ctx.log(`storm: only ${prepared.connected} of ${CONCURRENCY} connections open`);

    const storms = [];
    let lastStormEnded = Date.now();
    for (let index = 0; index < ctx.stormRepeats; index += 1) {
      if (byTtl) {
        // The session renewed in the previous storm (or at registration) lasts TTL_SECONDS from then.
        const wait = lastStormEnded + TTL_SECONDS * 1000 + 150 - Date.now();
        if (wait > 0) await sleep(wait);
      } else {
        await simulator.expireAll();
      }
      const before = await simulator.stats();
      const result = await ctx.load.storm({ ...spec, count: CONCURRENCY });
      lastStormEnded = Date.now();
      const after = await simulator.stats();
      const ok = result.statusCodes[200] ?? 0;
      storms.push({
        sessionsStarted: after.sessionsStarted - before.sessionsStarted,
        accountRequestsAtCore: after.accountRequests - before.accountRequests,
        ok,
        mismatches: result.mismatches,
        statusCodes: result.statusCodes,
        errors: result.errors.slice(0, 3),
        ...summarise(result.latenciesMs),
        latenciesMs: result.latenciesMs,
      });
    }
    return storms;
  } finally {
    await coregate.stop();
    await simulator.stop();
  }
}

export async function run(ctx) {
  for (const variant of ['core rejects', 'expired by TTL']) {
    const storms = await stormVariant(ctx, variant);
    const exactlyOne = storms.filter((storm) => storm.sessionsStarted === 1).length;
    const allOk = storms.every((storm) => storm.ok === CONCURRENCY && storm.mismatches === 0);
    const overall = summarise(storms.flatMap((storm) => storm.latenciesMs));
    const stormP99s = storms.map((storm) => round(storm.p99, 2));
    const non2xx = storms.reduce((sum, storm) => sum + CONCURRENCY - storm.ok, 0);
    ctx.results.addSpecialRow({
      scenario: name,
      variant: `${ctx.primaryStorage}, ${variant}`,
      subject: 'coregate',
      p50Ms: round(overall.p50, 3),
      p99Ms: round(overall.p99, 3),
      maxMs: round(overall.max, 3),
      non2xx,
      errors: storms.reduce((sum, storm) => sum + storm.errors.length, 0),
      storms: storms.map(({ latenciesMs, ...storm }) => ({
        ...storm,
        p50: round(storm.p50, 3),
        p99: round(storm.p99, 3),
        max: round(storm.max, 3),
      })),
      status: allOk ? 'ok' : 'failed',
      notes: [
        `${storms.length} storms of ${CONCURRENCY}; core sessions per storm: ${storms.map((storm) => storm.sessionsStarted).join(',')}`,
        `storm p99 (ms): median ${round(median(stormP99s), 2)}, worst ${Math.max(...stormP99s)}`,
        ...(allOk
          ? []
          : [
              `wrong answers: ${JSON.stringify(storms.filter((storm) => storm.ok !== CONCURRENCY || storm.mismatches).map((storm) => storm.statusCodes))}`,
            ]),
      ],
    });
    ctx.results.addTarget({
      scenario: name,
      name: `storm: exactly 1 core session per storm (${variant})`,
      required: `${storms.length} of ${storms.length}`,
      measured: `${exactlyOne} of ${storms.length}`,
      pass: exactlyOne === storms.length,
    });
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
