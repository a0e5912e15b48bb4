/**
 * 6. Scale: the accounts hot path (scenario 2) on PostgreSQL with 1,000
 * associations and with 1,000,000 in the same table, same customer, same servers.
 *
 * The measured customer is registered through the API (its delegate reference
 * ID is sealed with its own (platform, customerId) as AAD); the other rows are
 * bulk-loaded with SQL and carry a copy of that sealed text — never opened,
 * since nobody asks for them.
 *
 * Order A-B-A: 1,000 rows, then 1,000,000, then back to 1,000 (VACUUM FULL);
 * the 1,000-row figure is the mean of both, so drift during the run (heap
 * growth, a warmer JIT) does not pass for an effect of the table's size.
 *
 * coregate keeps associations in process for COREGATE_ASSOCIATION_CACHE_SECONDS
 * (5 s by default), so one hot customer rarely reaches the table at all. Two
 * coregates share the database: one as configured by default, one with that
 * cache off, which reads the association from PostgreSQL on every request.
 */
import { DEMO_CUSTOMERS } from '../../dist/src/adapters/core/simulator/demo-data.js';
import { checkAccounts, checkTokenEndpoint } from '../lib/checks.mjs';
import { measure } from '../lib/measure.mjs';
import { startCoregate, startSimulator } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';
import { clientWithToken, HOT_CUSTOMER_ID, prepareHotCustomer } from './accounts.mjs';

export const name = 'scale';
export const names = [name];
export const title = '6. Scale (associations in PostgreSQL)';

const SMALL = 1_000;

/** Adds filler associations numbered `from`..`to` beside the measured one (same platform), then tidies up. */
async function bulkLoad(ctx, url, from, to) {
  await ctx.pg.with(url, async (client) => {
    const { rows } = await client.query(`select platform, delegate_sealed, delegate_key_id from associations where customer_id = $1`, [HOT_CUSTOMER_ID]);
    const model = rows[0];
    const started = Date.now();
    await client.query(
      `insert into associations (platform, customer_id, customer_key, delegate_sealed, delegate_key_id, expires_at, created_at, updated_at)
       select $1, 'bulk-' || lpad(g::text, 7, '0'), 'C-' || (100000 + g % 900000), $2, $3, now() + interval '1 day', now(), now()
       from generate_series($4::int, $5::int) as g`,
      [model.platform, model.delegate_sealed, model.delegate_key_id, from, to],
    );
    await client.query('vacuum analyze associations');
    // Write the new pages out now, not during the measurement.
    await client.query('checkpoint');
    await logSize(ctx, client, `after ${((Date.now() - started) / 1000).toFixed(1)} s of bulk load`);
  });
}

/** Deletes the filler rows above `keep` and rewrites the table and its indexes, as if they had never been there. */
async function shrink(ctx, url, keep) {
  await ctx.pg.with(url, async (client) => {
    const started = Date.now();
    await client.query(`delete from associations where customer_id like 'bulk-%' and customer_id > $1`, [`bulk-${String(keep - 1).padStart(7, '0')}`]);
    await client.query('vacuum full analyze associations');
    await client.query('checkpoint');
    await logSize(ctx, client, `after ${((Date.now() - started) / 1000).toFixed(1)} s of delete and VACUUM FULL`);
  });
}

async function logSize(ctx, client, what) {
  const { rows } = await client.query(`select count(*)::int as n, pg_size_pretty(pg_total_relation_size('associations')) as size from associations`);
  ctx.log(`scale: ${rows[0].n.toLocaleString('en')} associations (${rows[0].size}) ${what}`);
}

const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** One figure from the runs before and after (req/s, latency and CPU averaged; counts added; RSS the larger). */
function combine(runs) {
  const optionalMean = (pick) => (runs.every((run) => pick(run) !== undefined) ? mean(runs.map(pick)) : undefined);
  return {
    requestsPerSecond: mean(runs.map((run) => run.requestsPerSecond)),
    responses: runs.reduce((sum, run) => sum + run.responses, 0),
    seconds: runs.reduce((sum, run) => sum + run.seconds, 0),
    latencyMs: Object.fromEntries(Object.keys(runs[0].latencyMs).map((key) => [key, mean(runs.map((run) => run.latencyMs[key]))])),
    cpuMicrosPerRequest: optionalMean((run) => run.cpuMicrosPerRequest),
    serverCpuShare: optionalMean((run) => run.serverCpuShare),
    loadSideCpuShare: optionalMean((run) => run.loadSideCpuShare),
    otherCpuShare: optionalMean((run) => run.otherCpuShare),
    rssBytes: Math.max(...runs.map((run) => run.rssBytes ?? 0)) || undefined,
    statusCodes: runs.reduce((all, run) => {
      for (const [code, count] of Object.entries(run.statusCodes)) all[code] = (all[code] ?? 0) + count;
      return all;
    }, {}),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    attempts: Math.max(...runs.map((run) => run.attempts ?? 1)),
  };
}

const VARIANTS = [
  { label: 'association cache 5 s', env: {} },
  { label: 'association cache off', env: { COREGATE_ASSOCIATION_CACHE_SECONDS: '0' } },
];

export async function run(ctx) {
  if (!ctx.storages.includes('postgres')) {
    ctx.results.addSkipped(name, ctx.pgUnavailable ?? 'PostgreSQL not selected');
    return;
  }
  const large = ctx.scaleRows;
  const simulator = await startSimulator(ctx);
  const servers = [];
  try {
    const storage = await freshStorage(ctx, 'postgres', 'scale');
    for (const variant of VARIANTS) servers.push({ variant, coregate: await startCoregate(ctx, { storage, coreUrl: simulator.url, env: variant.env }) });
    const { client, accessToken } = await clientWithToken(servers[0].coregate, 'bench scale');
    const firstSpec = await prepareHotCustomer(ctx, servers[0].coregate, accessToken);
    for (const server of servers) {
      // Each server is its own issuer (COREGATE_ISSUER is left unset): a token of its own.
      const { coregate } = server;
      const own = await checkTokenEndpoint({ what: 'coregate POST /oauth2/token', tokenUrl: `${coregate.url}/oauth2/token`, jwksUrl: `${coregate.url}/.well-known/jwks.json`, issuer: coregate.url, client });
      server.spec = { ...firstSpec, origin: coregate.url, headers: { authorization: `Bearer ${own.accessToken}` } };
    }

    const runs = new Map(servers.map((server) => [server, { small: [], large: undefined }]));
    const measureAll = async (size) => {
      for (const server of servers) {
        await checkAccounts({
          what: `coregate (${server.variant.label}) GET ${server.spec.path} with ${size.toLocaleString('en')} associations`,
          url: `${server.spec.origin}${server.spec.path}`,
          headers: server.spec.headers,
          expectedAccounts: DEMO_CUSTOMERS[0].accounts,
          pick: (json) => json.data,
        });
        const measurement = await measure(ctx, { server: server.coregate, peers: [simulator], spec: server.spec });
        if (size === SMALL) runs.get(server).small.push(measurement);
        else runs.get(server).large = measurement;
      }
    };
    await bulkLoad(ctx, storage.url, 1, SMALL - 1);
    await measureAll(SMALL);
    await bulkLoad(ctx, storage.url, SMALL, large - 1);
    await measureAll(large);
    if (!ctx.quick) {
      // A smoke run skips the way back.
      await shrink(ctx, storage.url, SMALL);
      await measureAll(SMALL);
    }

    const label = large.toLocaleString('en');
    for (const server of servers) {
      const { small, large: big } = runs.get(server);
      const smallRow = ctx.results.addRow({
        scenario: name,
        variant: `postgres, ${server.variant.label}, 1,000 associations`,
        subject: 'coregate',
        baseline: true,
        measurement: combine(small),
        settings: server.variant.env,
        notes:
          small.length > 1
            ? [`mean of the runs before and after the ${label}-row run: ${small.map((run) => `${Math.round(run.requestsPerSecond)} req/s, p99 ${run.latencyMs.p99.toFixed(2)} ms`).join(' / ')}`]
            : ['measured before the large run only (--quick)'],
      });
      const largeRow = ctx.results.addRow({ scenario: name, variant: `postgres, ${server.variant.label}, ${label} associations`, subject: 'coregate', measurement: big, settings: server.variant.env });
      ctx.results.compare(largeRow, smallRow, {
        requestsPerSecond: { name: `${label} vs 1,000 associations req/s (${server.variant.label})`, min: 0.9 },
        p99: { name: `${label} vs 1,000 associations p99 (${server.variant.label})`, max: 1.2 },
      });
    }
  } finally {
    for (const server of servers) await server.coregate.stop();
    await simulator.stop();
  }
}
