/**
 * 9. Bulk registration: a platform onboarding its customer base registers 100,000
 * customers (10,000 with --quick) of the simulator's generated population by customer
 * key (Form B) through `@coregate/client`'s `registerCustomers`, at its default
 * concurrency, against coregate on PostgreSQL at the deployed configuration. Reported:
 * the wall time, registrations a second, CPU of coregate and of the machine per
 * registration, and the core sessions started (`/_sim/stats`), which must be exactly one
 * per customer. The SDK runs in the bench's own process, not pinned: it stands for the
 * platform, and its CPU counts in the machine's figure.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CoregateClient } from '@coregate/client';
import { databaseCost, databaseSnapshot } from '../lib/measure.mjs';
import { cpuSeconds, machineBusySeconds, sampleRss, treeCpuDelta, treeCpuSnapshot } from '../lib/proc-stat.mjs';
import { round } from '../lib/results.mjs';
import { startCoregate, startSimulator } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';

export const name = 'bulk';
export const names = [name];
export const title = '9. Bulk registration through the SDK';

/** The first customer of the simulator's generated population (`C-100000`). */
const FIRST_CUSTOMER = 100_000;

/**
 * Index entries PostgreSQL read on `associations` so far, and whether the table has statistics:
 * a lookup by customerId should read one entry, whatever the table's size.
 */
async function associationsIndexReads(ctx, url) {
  const { rows } = await ctx.pg.with(url, (client) =>
    client.query(
      `select coalesce(sum(idx_tup_read), 0)::bigint as reads,
              (select last_analyze is not null or last_autoanalyze is not null from pg_stat_user_tables where relname = 'associations') as analyzed
       from pg_stat_user_indexes where relname = 'associations'`,
    ),
  );
  return { reads: Number(rows[0].reads), analyzed: rows[0].analyzed === true };
}

function* customers(runId, count) {
  for (let index = 0; index < count; index += 1) {
    yield { customerId: `bulk-${runId}-${index}`, customer: { customerKey: `C-${FIRST_CUSTOMER + index}` } };
  }
}

export async function run(ctx) {
  if (!ctx.storages.includes('postgres')) {
    ctx.results.addSkipped(
      name,
      ctx.pgUnavailable ?? 'PostgreSQL not selected (the bulk registration is measured on PostgreSQL)',
    );
    return;
  }
  const count = ctx.quick ? 10_000 : 100_000;
  const simulator = await startSimulator(ctx);
  const storage = await freshStorage(ctx, 'postgres', 'bulk');
  const coregate = await startCoregate(ctx, { storage, coreUrl: simulator.url });
  try {
    const client = await coregate.createClient('bench bulk', 'bench-bulk');
    const cg = new CoregateClient({
      baseUrl: coregate.url,
      clientId: client.client_id,
      clientSecret: client.client_secret,
    });
    await sleep(1100);
    const before = await simulator.stats();
    ctx.log(
      `bulk: registering ${count.toLocaleString('en')} customers by customer key through registerCustomers (concurrency 16)`,
    );
    const cpuBefore = treeCpuSnapshot(coregate.pid);
    const simulatorBefore = cpuSeconds(simulator.pid);
    const sdkBefore = process.cpuUsage();
    const machineBefore = machineBusySeconds();
    const databaseBefore = await databaseSnapshot(ctx, storage.url);
    const indexBefore = await associationsIndexReads(ctx, storage.url);
    const rss = sampleRss(coregate.pid);
    let last;
    let failed = 0;
    const reasons = {};
    const started = performance.now();
    const ticker = setInterval(
      () =>
        last &&
        ctx.log(
          `bulk: ${last.done.toLocaleString('en')} done, ${last.inFlight} in flight, ${last.throttled} refusals waited out`,
        ),
      10_000,
    );
    try {
      for await (const result of cg.registerCustomers(customers(ctx.runId, count), {
        onProgress: (progress) => (last = progress),
      })) {
        if (result.ok) continue;
        failed += 1;
        const reason = result.error.data.reason ?? result.error.name;
        reasons[reason] = (reasons[reason] ?? 0) + 1;
      }
    } finally {
      clearInterval(ticker);
    }
    const seconds = (performance.now() - started) / 1000;
    const coregateCpu = treeCpuDelta(cpuBefore, treeCpuSnapshot(coregate.pid));
    const sdk = process.cpuUsage(sdkBefore);
    const simulatorCpu = cpuSeconds(simulator.pid) - simulatorBefore;
    const machineCpu = machineBusySeconds() - machineBefore;
    // PostgreSQL publishes a backend's statistics at most once a second.
    await sleep(1100);
    const database = databaseCost(databaseBefore, await databaseSnapshot(ctx, storage.url), count, {
      countTransactions: true,
    });
    const indexAfter = await associationsIndexReads(ctx, storage.url);
    const indexReads = (indexAfter.reads - indexBefore.reads) / count;
    const perRegistration = (cpuSecondsUsed) => `${Math.round((cpuSecondsUsed / count) * 1e6)} µs`;
    const peakRss = rss.stop();
    const after = await simulator.stats();
    const sessions = after.sessionsStarted - before.sessionsStarted;
    const perSecond = count / seconds;
    ctx.results.addSpecialRow({
      scenario: name,
      variant: `postgres, ${count.toLocaleString('en')} Form B, concurrency 16`,
      subject: 'coregate via @coregate/client',
      requestsPerSecond: round(perSecond, 1),
      seconds: round(seconds, 1),
      cpuMicrosPerRequest: coregateCpu === undefined ? undefined : round((coregateCpu / count) * 1e6, 1),
      rssMB: peakRss === undefined ? undefined : round(peakRss / 1024 / 1024, 1),
      non2xx: failed,
      errors: 0,
      sessionsStarted: sessions,
      ...(database
        ? {
            database: {
              connections: database.connections,
              cpuMicrosPerRequest: round(database.cpuMicrosPerRequest, 1),
              transactionsPerRequest: round(database.transactionsPerRequest, 2),
            },
          }
        : {}),
      throttled: last?.throttled ?? 0,
      status: failed === 0 && sessions === count ? 'ok' : 'failed',
      notes: [
        `${count.toLocaleString('en')} registrations in ${round(seconds, 1)} s: ${Math.round(perSecond)} a second; ${sessions.toLocaleString('en')} core sessions started`,
        `CPU per registration: coregate ${perRegistration(coregateCpu)}, PostgreSQL ${database ? perRegistration((database.cpuMicrosPerRequest * count) / 1e6) : '?'}` +
          `${database ? ` (${database.transactionsPerRequest.toFixed(2)} transactions, ${database.connections} connections)` : ''}, simulator ${perRegistration(simulatorCpu)}, ` +
          `the SDK (bench process) ${perRegistration((sdk.user + sdk.system) / 1e6)}; the machine ${perRegistration(machineCpu)} (other work on it included)`,
        `associations index entries read per registration: ${Math.round(indexReads).toLocaleString('en')}${indexAfter.analyzed ? '' : ' (the table has no statistics: never analyzed)'}`,
        ...(last?.throttled ? [`${last.throttled} answers 429/503 waited out`] : []),
        ...(failed ? [`failed: ${JSON.stringify(reasons)}`] : []),
      ],
    });
    ctx.results.addTarget({
      scenario: name,
      name: 'bulk: exactly one core session per customer',
      required: count.toLocaleString('en'),
      measured: sessions.toLocaleString('en'),
      pass: sessions === count,
    });
  } finally {
    await coregate.stop();
    await simulator.stop();
  }
}
