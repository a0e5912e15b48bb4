/**
 * 2. Accounts hot path: GET /core/accounts for a registered customer whose core
 * session is valid, beside a bare pass-through proxy to the same simulator
 * serving the same accounts. Run by `gateway.mjs` (with scenario 3 and on each
 * storage, scenario 5).
 */
import { DEMO_CUSTOMERS } from '../../dist/src/adapters/core/simulator/demo-data.js';
import { checkAccounts, checkTokenEndpoint, register } from '../lib/checks.mjs';
import { measure } from '../lib/measure.mjs';
import { startCoregate } from '../lib/servers.mjs';

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
  await register(coregate.url, accessToken, { customer: { customerKey: CUSTOMER.customerKey }, registration: { customerId: HOT_CUSTOMER_ID } }, CUSTOMER.customerKey);
  const headers = { authorization: `Bearer ${accessToken}` };
  const path = `/core/accounts?customerId=${HOT_CUSTOMER_ID}`;
  const body = await checkAccounts({ what: `coregate GET ${path}`, url: `${coregate.url}${path}`, headers, expectedAccounts: CUSTOMER.accounts, pick: (json) => json.data });
  ctx.captured.accountsBody ??= body;
  return { origin: coregate.url, path, headers };
}

/** Starts coregate on `storage` against `coreUrl` with the hot-path customer registered (scale, profiles). */
export async function coregateWithHotCustomer(ctx, { storage, coreUrl, nodeArgs = [] }) {
  const coregate = await startCoregate(ctx, { storage, coreUrl, nodeArgs });
  try {
    const { accessToken } = await clientWithToken(coregate, 'bench accounts');
    return { coregate, spec: await prepareHotCustomer(ctx, coregate, accessToken) };
  } catch (error) {
    await coregate.stop();
    throw error;
  }
}

/** The baseline: the bare proxy's GET /core/accounts. */
export async function measureProxy(ctx, proxy, peers) {
  await checkAccounts({ what: 'bare proxy GET /core/accounts', url: `${proxy.url}/core/accounts`, expectedAccounts: CUSTOMER.accounts, pick: (json) => json.accounts });
  ctx.log('accounts: the bare proxy answers the right accounts; loading');
  const measurement = await measure(ctx, { server: proxy, peers, spec: { origin: proxy.url, path: '/core/accounts' } });
  return ctx.results.addRow({ scenario: name, subject: 'bare proxy', baseline: true, measurement, notes: ['node:http + undici Pool.stream()'] });
}

/** coregate's GET /core/accounts on one storage, compared with the proxy's row. */
export async function measureCoregate(ctx, { coregate, accessToken, kind, baseline, peers }) {
  const spec = await prepareHotCustomer(ctx, coregate, accessToken);
  ctx.log(`accounts: coregate on ${kind} answers the right accounts; loading`);
  const measurement = await measure(ctx, { server: coregate, peers, spec });
  const row = ctx.results.addRow({ scenario: name, variant: kind, subject: 'coregate', measurement });
  if (!baseline) return;
  const vs = ctx.results.compare(row, baseline);
  ctx.results.addTarget({ scenario: name, name: `accounts req/s vs bare proxy (${kind})`, required: '≥ 0.6×', measured: `${vs.requestsPerSecond}×`, pass: vs.requestsPerSecond >= 0.6 });
  ctx.results.addTarget({ scenario: name, name: `accounts p99 vs bare proxy (${kind})`, required: '≤ 2×', measured: `${vs.p99}× (${row.p99Ms} vs ${baseline.p99Ms} ms)`, pass: vs.p99 <= 2 });
}
