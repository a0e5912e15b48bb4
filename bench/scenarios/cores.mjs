/**
 * 8. Cores: coregate with COREGATE_WORKERS=1 and =2 on PostgreSQL, the load
 * generator paced at a fixed rate on the accounts hot path and on token
 * issuance. On a two-core machine two workers and the load generator share the
 * CPUs, so their throughput says little; what compares is the CPU time per
 * request of the whole process tree (supervisor and workers) at the same rate,
 * and what each request costs PostgreSQL, the piece every worker and instance
 * shares. Both worker counts run with the server allowed on every CPU (the load
 * generator and the simulator stay on theirs), so that they differ only in the
 * setting.
 */
import { tokenRequest } from '../lib/checks.mjs';
import { measure } from '../lib/measure.mjs';
import { startCoregate, startSimulator } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';
import { clientWithToken, prepareHotCustomer } from './accounts.mjs';

export const name = 'cores';
export const names = [name];
export const title = '8. Cores: one worker vs two at a fixed rate';

/** Well under what one worker answers on one core, so that both settings meet it. */
export const FIXED_RATE = 1500;
const WORKER_COUNTS = [1, 2];

/**
 * Rate-limit round trips to Redis per request when COREGATE_REDIS_URL is set (not
 * in this run): the client's gateway budget on /core/*; on the token endpoint the
 * source address's failure budget (a peek), its request budget and the client's
 * budget (app/request-throttle.ts).
 */
const REDIS_ROUND_TRIPS_PER_REQUEST = { accounts: 1, token: 3 };

async function measureWorkers(ctx, simulator, workers) {
  const storage = await freshStorage(ctx, 'postgres', `cores_${workers}`);
  // One worker is the default: only two are a setting of their own.
  const settings = workers > 1 ? { COREGATE_WORKERS: String(workers) } : {};
  const label = `${workers} worker${workers > 1 ? 's' : ''}`;
  const coregate = await startCoregate(ctx, {
    storage,
    coreUrl: simulator.url,
    env: settings,
    cpus: ctx.plan.pinned ? ctx.plan.all : undefined,
  });
  try {
    const { client, accessToken } = await clientWithToken(coregate, 'bench cores');
    const paths = {
      accounts: await prepareHotCustomer(ctx, coregate, accessToken),
      token: { origin: coregate.url, path: '/oauth2/token', ...tokenRequest(client) },
    };
    const rows = {};
    for (const [path, spec] of Object.entries(paths)) {
      ctx.log(`cores: ${path}, ${label} at ${FIXED_RATE} req/s`);
      const measurement = await measure(ctx, {
        server: coregate,
        peers: [simulator],
        spec: { ...spec, rate: FIXED_RATE },
        database: storage.url,
      });
      const db = measurement.database;
      rows[path] = ctx.results.addRow({
        scenario: name,
        variant: `postgres, ${path}, ${label}, ${FIXED_RATE.toLocaleString('en')} req/s`,
        subject: 'coregate',
        measurement,
        settings,
        notes: db
          ? [
              `PostgreSQL: ${Math.round(db.cpuMicrosPerRequest)} µs CPU${db.transactionsPerRequest === undefined ? '' : ` and ${db.transactionsPerRequest.toFixed(2)} transactions`} per request, ${db.connections} connections`,
            ]
          : [],
      });
      rows[path].redisRoundTripsPerRequest = REDIS_ROUND_TRIPS_PER_REQUEST[path];
    }
    return rows;
  } finally {
    await coregate.stop();
  }
}

export async function run(ctx) {
  if (!ctx.storages.includes('postgres')) {
    // COREGATE_WORKERS > 1 needs DATABASE_URL.
    ctx.results.addSkipped(name, ctx.pgUnavailable ?? 'PostgreSQL not selected (several workers need it)');
    return;
  }
  const simulator = await startSimulator(ctx);
  try {
    const byWorkers = new Map();
    for (const workers of WORKER_COUNTS) byWorkers.set(workers, await measureWorkers(ctx, simulator, workers));
    const one = byWorkers.get(1);
    for (const [workers, rows] of byWorkers) {
      if (workers === 1) continue;
      for (const [path, row] of Object.entries(rows)) ctx.results.compareCpu(row, one[path]);
    }
  } finally {
    await simulator.stop();
  }
}
