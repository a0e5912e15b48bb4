/**
 * 2c. Accounts through the Fineract connector (docs/cores/fineract.md): the accounts hot path of
 * a coregate whose default institution is of core kind `fineract`, in front of the Fineract
 * stand-in (`coregate fineract-sim`, on the core's CPU like the simulator), beside the same read
 * through the reference protocol (a coregate in front of the simulator), in rounds taken in
 * turn. Fineract has no accounts call that answers everything: one read is the client's
 * account list and one call per account, plus a transaction-search page per savings or current
 * account whose answer leaves its year's interest postings open (the first read of an account
 * with interest posted; docs/cores/fineract.md#calls), which the row counts as core calls per read.
 */
import { measurePair, roundsNote } from '../lib/measure.mjs';
import { register } from '../lib/checks.mjs';
import { startCoregate, startFineractSim, startSimulator } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';
import { clientWithToken, HOT_CUSTOMER_ID, HOT_CUSTOMER_KEY, prepareHotCustomer } from './accounts.mjs';

export const name = 'fineract';
export const names = [name];
export const title = '2c. Accounts through the Fineract connector, beside the reference protocol';

/** Reads made one by one after the load, to count the core calls a read makes. */
const COUNTED_READS = 100;

/** The stand-in's service user (docs/cores/fineract.md, "Trying it"). */
const SERVICE_USER = { username: 'coregate-reader', password: 'stand-in-password' };

/** Registers the hot-path customer by external id and checks its accounts read; returns the load spec. */
async function prepareFineractCustomer(coregate, accessToken) {
  await register(
    coregate.url,
    accessToken,
    { customer: { customerKey: HOT_CUSTOMER_KEY }, registration: { customerId: HOT_CUSTOMER_ID } },
    HOT_CUSTOMER_KEY,
  );
  const headers = { authorization: `Bearer ${accessToken}` };
  const path = `/core/accounts?customerId=${HOT_CUSTOMER_ID}`;
  const response = await fetch(`${coregate.url}${path}`, { headers });
  const json = await response.json();
  if (response.status !== 200 || !Array.isArray(json.data) || json.data.length === 0)
    throw new Error(
      `coregate (Fineract) GET ${path}: status ${response.status}, ${JSON.stringify(json).slice(0, 300)}`,
    );
  if (json.data.some((record) => record.customerKey !== HOT_CUSTOMER_KEY))
    throw new Error(`coregate (Fineract) GET ${path}: a record of another customer`);
  return { origin: coregate.url, path, headers, accounts: json.data.length };
}

export async function run(ctx) {
  const kind = ctx.primaryStorage;
  const simulator = await startSimulator(ctx);
  const standIn = await startFineractSim(ctx);
  const servers = [];
  try {
    const reference = await startCoregate(ctx, {
      storage: await freshStorage(ctx, kind, 'fineract_reference'),
      coreUrl: simulator.url,
    });
    servers.push(reference);
    const fineract = await startCoregate(ctx, {
      storage: await freshStorage(ctx, kind, 'fineract_connector'),
      coreUrl: standIn.url,
      env: {
        COREGATE_CORE_KIND: 'fineract',
        COREGATE_FINERACT_USERNAME: SERVICE_USER.username,
        COREGATE_FINERACT_PASSWORD: SERVICE_USER.password,
        COREGATE_FINERACT_CUSTOMER_KEY: 'external-id',
      },
    });
    servers.push(fineract);
    const referenceSpec = await prepareHotCustomer(
      ctx,
      reference,
      (await clientWithToken(reference, 'bench')).accessToken,
    );
    const { accounts, ...fineractSpec } = await prepareFineractCustomer(
      fineract,
      (await clientWithToken(fineract, 'bench')).accessToken,
    );
    ctx.log(`fineract: ${accounts} accounts a read; loading both coregates in turns (${kind})`);
    const pair = await measurePair(ctx, {
      subject: { server: fineract, peers: [standIn], spec: fineractSpec },
      baseline: { server: reference, peers: [simulator], spec: referenceSpec },
    });
    // Counted apart from the load (whose warm-up reads reach the core too): reads one after another.
    const before = await standIn.stats();
    for (let read = 0; read < COUNTED_READS; read++) {
      const response = await fetch(`${fineractSpec.origin}${fineractSpec.path}`, { headers: fineractSpec.headers });
      if (response.status !== 200) throw new Error(`fineract: a counted read answered ${response.status}`);
      await response.arrayBuffer();
    }
    const after = await standIn.stats();
    const callsPerRead = (after.requests - before.requests) / COUNTED_READS;
    const row = ctx.results.addRow({
      scenario: name,
      variant: kind,
      subject: 'coregate, Fineract connector',
      measurement: pair.subject,
      notes: [
        `core calls per read: ${callsPerRead.toFixed(2)} (${accounts} accounts; ${COUNTED_READS} reads counted after the load)`,
        roundsNote(pair),
      ],
    });
    const baselineRow = ctx.results.addRow({
      scenario: name,
      variant: `in turns, ${kind}`,
      subject: 'coregate, reference protocol',
      baseline: true,
      measurement: pair.baseline,
      notes: ['one core call per read (GET /v1/accounts)'],
    });
    ctx.results.compareCpu(row, baselineRow, { label: 'of the reference-protocol read' });
    ctx.results.addTarget({
      scenario: name,
      name: `accounts through the Fineract connector (${kind})`,
      required: 'reported (no target)',
      measured: `${row.vs.cpuMicrosPerRequest ?? '?'}× the reference-protocol read's CPU (${row.cpuMicrosPerRequest} vs ${baselineRow.cpuMicrosPerRequest} µs), ${callsPerRead.toFixed(2)} core calls per read`,
      pass: undefined,
    });
  } finally {
    for (const server of servers) await server.stop();
    await standIn.stop();
    await simulator.stop();
  }
}
