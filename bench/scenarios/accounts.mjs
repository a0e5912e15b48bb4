/**
 * 2. Accounts hot path: GET /core/accounts for a registered customer whose core
 * session is valid, beside a bare pass-through proxy to the same simulator
 * serving the same accounts: closed loop (throughput) and paced at a fixed rate
 * (latency). Run by `gateway.mjs` (with scenario 3 and on each storage, scenario 5).
 */
import { DEMO_CUSTOMERS } from '../../dist/src/fakes/core-simulator/demo-data.js';
import { checkAccounts, checkTokenEndpoint, register } from '../lib/checks.mjs';
import { measure, measurePair, roundsNote } from '../lib/measure.mjs';
import { startAuditedReadFloor, startCoregate } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';

export const name = 'accounts';

/** Demo customer C-1001: three accounts using every field. */
const CUSTOMER = DEMO_CUSTOMERS[0];
export const HOT_CUSTOMER_KEY = CUSTOMER.customerKey;
export const HOT_CUSTOMER_ID = 'bench-hot-path';

/** A client of a running coregate and a verified access token of it. */
export async function clientWithToken(coregate, name) {
  const client = await coregate.createClient(name, 'bench');
  const { accessToken } = await checkTokenEndpoint({
    what: 'coregate POST /oauth2/token',
    tokenUrl: `${coregate.url}/oauth2/token`,
    jwksUrl: `${coregate.url}/.well-known/jwks.json`,
    issuer: coregate.url,
    client,
  });
  return { client, accessToken };
}

/** Registers the hot-path customer and checks its accounts; returns the load spec and the body. */
export async function prepareHotCustomer(ctx, coregate, accessToken) {
  await register(
    coregate.url,
    accessToken,
    { customer: { customerKey: CUSTOMER.customerKey }, registration: { customerId: HOT_CUSTOMER_ID } },
    CUSTOMER.customerKey,
  );
  const headers = { authorization: `Bearer ${accessToken}` };
  const path = `/core/accounts?customerId=${HOT_CUSTOMER_ID}`;
  const body = await checkAccounts({
    what: `coregate GET ${path}`,
    url: `${coregate.url}${path}`,
    headers,
    expectedAccounts: CUSTOMER.accounts,
    pick: (json) => json.data,
  });
  ctx.captured.accountsBody ??= body;
  return { origin: coregate.url, path, headers };
}

/** Starts coregate on `storage` against `coreUrl` with the hot-path customer registered (scale, profiles). */
export async function coregateWithHotCustomer(ctx, { storage, coreUrl, nodeArgs = [], root }) {
  const coregate = await startCoregate(ctx, { storage, coreUrl, nodeArgs, root });
  try {
    const { accessToken } = await clientWithToken(coregate, 'bench accounts');
    return { coregate, spec: await prepareHotCustomer(ctx, coregate, accessToken) };
  } catch (error) {
    await coregate.stop();
    throw error;
  }
}

/**
 * Beside the closed-loop figures (50 connections, each sending as fast as it is
 * answered: the most the server does), the latency a user feels at a realistic
 * fixed rate: requests paced at this rate, open loop (`load-worker.mjs`).
 */
export const OPEN_LOOP_RATE = 1000;
const openLoop = (variant) =>
  [variant, `open loop ${OPEN_LOOP_RATE.toLocaleString('en')} req/s`].filter(Boolean).join(', ');

/**
 * The bare proxy's GET /core/accounts at the open-loop rate; its closed-loop figure is taken
 * with each coregate's, in rounds taken in turn (`measureCoregate`), so the proxy serves on.
 */
export async function measureProxy(ctx, proxy, peers) {
  await checkAccounts({
    what: 'bare proxy GET /core/accounts',
    url: `${proxy.url}/core/accounts`,
    expectedAccounts: CUSTOMER.accounts,
    pick: (json) => json.accounts,
  });
  ctx.log(`accounts: the bare proxy answers the right accounts; at ${OPEN_LOOP_RATE} req/s, open loop`);
  const spec = { origin: proxy.url, path: '/core/accounts' };
  const paced = await measure(ctx, { server: proxy, peers, spec: { ...spec, rate: OPEN_LOOP_RATE } });
  const openLoopRow = ctx.results.addRow({
    scenario: name,
    variant: openLoop(),
    subject: 'bare proxy',
    baseline: true,
    measurement: paced,
  });
  return { proxy, spec, openLoop: openLoopRow };
}

/** coregate's GET /core/accounts on one storage, closed loop in turns with the proxy, then open loop. */
export async function measureCoregate(ctx, { coregate, accessToken, kind, baseline, peers, simulator }) {
  if (!baseline) throw new Error('the bare proxy failed its check: nothing to measure coregate against');
  const spec = await prepareHotCustomer(ctx, coregate, accessToken);
  ctx.log(`accounts: coregate on ${kind} answers the right accounts; loading it and the bare proxy, in turns`);
  const pair = await measurePair(ctx, {
    subject: { server: coregate, peers, spec },
    baseline: { server: baseline.proxy, peers, spec: baseline.spec },
  });
  const row = ctx.results.addRow({
    scenario: name,
    variant: kind,
    subject: 'coregate',
    measurement: pair.subject,
    notes: [roundsNote(pair)],
  });
  const proxyRow = ctx.results.addRow({
    scenario: name,
    variant: `in turns with ${kind}`,
    subject: 'bare proxy',
    baseline: true,
    measurement: pair.baseline,
    notes: ['node:http + undici Pool.stream()'],
  });
  ctx.log(`accounts: coregate on ${kind} at ${OPEN_LOOP_RATE} req/s, open loop`);
  const paced = await measure(ctx, { server: coregate, peers, spec: { ...spec, rate: OPEN_LOOP_RATE } });
  const openLoopRow = ctx.results.addRow({
    scenario: name,
    variant: openLoop(kind),
    subject: 'coregate',
    measurement: paced,
  });
  // The embedded database runs in coregate's own process, on its event loop: its goal is lower.
  const goal = kind === 'pglite' ? { min: 0.4, max: 3 } : { min: 0.5, max: 2 };
  ctx.results.compare(row, proxyRow, {
    requestsPerSecond: { name: `accounts req/s vs bare proxy (${kind})`, min: goal.min },
    p99: { name: `accounts p99 vs bare proxy (${kind})`, max: goal.max },
  });
  ctx.results.addedLatency(
    openLoopRow,
    baseline.openLoop,
    `accounts at ${OPEN_LOOP_RATE.toLocaleString('en')} req/s open loop: latency added to the bare proxy's (${kind})`,
  );
  const floorRow = await measureAuditedReadFloor(ctx, { kind, simulator, peers });
  ctx.results.addedLatency(
    openLoopRow,
    floorRow,
    `accounts at ${OPEN_LOOP_RATE.toLocaleString('en')} req/s open loop: latency added to the audited-read floor's (${kind})`,
    { maxAddedP99Ms: 1 },
  );
}

/**
 * The audited-read floor on `kind` (`baselines/bare-proxy.mjs` with `AUDIT=1`): the bare proxy
 * plus one committed row per read on a database of the same kind, at the open-loop rate. What
 * the promise "an answer's audit row is committed" costs on this machine's disk, without
 * anything else coregate does.
 */
async function measureAuditedReadFloor(ctx, { kind, simulator, peers }) {
  const storage = await freshStorage(ctx, kind, `audited_floor_${kind}`);
  const floor = await startAuditedReadFloor(ctx, simulator.url, HOT_CUSTOMER_KEY, storage);
  try {
    await checkAccounts({
      what: `audited-read floor (${kind}) GET /core/accounts`,
      url: `${floor.url}/core/accounts`,
      expectedAccounts: CUSTOMER.accounts,
      pick: (json) => json.accounts,
    });
    ctx.log(`accounts: the audited-read floor (${kind}) at ${OPEN_LOOP_RATE} req/s, open loop`);
    const paced = await measure(ctx, {
      server: floor,
      peers,
      spec: { origin: floor.url, path: '/core/accounts', rate: OPEN_LOOP_RATE },
    });
    return ctx.results.addRow({
      scenario: name,
      variant: openLoop(kind),
      subject: 'audited-read floor',
      baseline: true,
      measurement: paced,
      notes: ['bare proxy + one autocommit INSERT per read'],
    });
  } finally {
    await floor.stop();
  }
}
