/**
 * 6. Scale: the accounts hot path (scenario 2) on PostgreSQL with 1,000
 * associations in one database and 1,000,000 in another, on the same server.
 *
 * The measured customer is registered through the API in each database (its
 * delegate reference ID is sealed with its own (platform, customerId) as AAD); the
 * other rows are bulk-loaded with SQL and carry a copy of that sealed text —
 * never opened, since nobody asks for them.
 *
 * A coregate serves each database, and the two are measured in rounds taken in
 * turn (`measurePair`), as the other paired targets are: drift during the run
 * (the machine, a warmer JIT, heap growth) falls on both sides alike. The earlier
 * order A-B-A on one database read the same code anywhere from 0.74× to 1.07×.
 *
 * coregate keeps associations in process for COREGATE_ASSOCIATION_CACHE_SECONDS
 * (5 s by default), so one hot customer rarely reaches the table at all. So each
 * database is served twice: by a coregate as configured by default, and by one
 * with that cache off, which reads the association from PostgreSQL on every request.
 */
import { DEMO_CUSTOMERS } from '../../dist/src/fakes/core-simulator/demo-data.js';
import { checkAccounts, checkTokenEndpoint } from '../lib/checks.mjs';
import { measurePair, roundsNote } from '../lib/measure.mjs';
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
    const { rows } = await client.query(
      `select platform, delegate_sealed, delegate_key_id from associations where customer_id = $1`,
      [HOT_CUSTOMER_ID],
    );
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

async function logSize(ctx, client, what) {
  const { rows } = await client.query(
    `select count(*)::int as n, pg_size_pretty(pg_total_relation_size('associations')) as size from associations`,
  );
  ctx.log(`scale: ${rows[0].n.toLocaleString('en')} associations (${rows[0].size}) ${what}`);
}

const VARIANTS = [
  { label: 'association cache 5 s', env: {} },
  { label: 'association cache off', env: { COREGATE_ASSOCIATION_CACHE_SECONDS: '0' } },
];

/** A database with `rows` associations, served by one coregate per variant; the measured customer registered and checked on each. */
async function servedDatabase(ctx, simulator, rows) {
  const storage = await freshStorage(ctx, 'postgres', `scale_${rows}`);
  const servers = [];
  for (const variant of VARIANTS)
    servers.push({
      variant,
      coregate: await startCoregate(ctx, { storage, coreUrl: simulator.url, env: variant.env }),
    });
  const { client, accessToken } = await clientWithToken(servers[0].coregate, 'bench scale');
  const firstSpec = await prepareHotCustomer(ctx, servers[0].coregate, accessToken);
  for (const server of servers) {
    // Each server is its own issuer (COREGATE_ISSUER is left unset): a token of its own.
    const { coregate } = server;
    const own = await checkTokenEndpoint({
      what: 'coregate POST /oauth2/token',
      tokenUrl: `${coregate.url}/oauth2/token`,
      jwksUrl: `${coregate.url}/.well-known/jwks.json`,
      issuer: coregate.url,
      client,
    });
    server.spec = { ...firstSpec, origin: coregate.url, headers: { authorization: `Bearer ${own.accessToken}` } };
  }
  await bulkLoad(ctx, storage.url, 1, rows - 1);
  for (const server of servers) {
    await checkAccounts({
      what: `coregate (${server.variant.label}) GET ${server.spec.path} with ${rows.toLocaleString('en')} associations`,
      url: `${server.spec.origin}${server.spec.path}`,
      headers: server.spec.headers,
      expectedAccounts: DEMO_CUSTOMERS[0].accounts,
      pick: (json) => json.data,
    });
  }
  return servers;
}

export async function run(ctx) {
  if (!ctx.storages.includes('postgres')) {
    ctx.results.addSkipped(name, ctx.pgUnavailable ?? 'PostgreSQL not selected');
    return;
  }
  const large = ctx.scaleRows;
  const label = large.toLocaleString('en');
  const simulator = await startSimulator(ctx);
  const servers = [];
  try {
    const small = await servedDatabase(ctx, simulator, SMALL);
    servers.push(...small);
    const big = await servedDatabase(ctx, simulator, large);
    servers.push(...big);
    for (const [index, variant] of VARIANTS.entries()) {
      const peers = [simulator];
      ctx.log(`scale: ${label} against ${SMALL.toLocaleString('en')} associations (${variant.label}), in turns`);
      const pair = await measurePair(ctx, {
        subject: { server: big[index].coregate, peers, spec: big[index].spec },
        baseline: { server: small[index].coregate, peers, spec: small[index].spec },
      });
      const smallRow = ctx.results.addRow({
        scenario: name,
        variant: `postgres, ${variant.label}, 1,000 associations`,
        subject: 'coregate',
        baseline: true,
        measurement: pair.baseline,
        settings: variant.env,
      });
      const largeRow = ctx.results.addRow({
        scenario: name,
        variant: `postgres, ${variant.label}, ${label} associations`,
        subject: 'coregate',
        measurement: pair.subject,
        settings: variant.env,
        notes: [roundsNote(pair)],
      });
      ctx.results.compare(largeRow, smallRow, {
        requestsPerSecond: { name: `${label} vs 1,000 associations req/s (${variant.label})`, min: 0.9 },
        p99: { name: `${label} vs 1,000 associations p99 (${variant.label})`, max: 1.2 },
      });
    }
  } finally {
    for (const server of servers) await server.coregate.stop();
    await simulator.stop();
  }
}
