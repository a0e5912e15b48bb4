/**
 * Scenarios 2, 3 and 5 together: one core simulator; the bare proxy in front of
 * it (the accounts baseline); then, on each storage, one coregate in front of it
 * measured on the accounts hot path and then on registration (beside its floor,
 * started on that storage by `registration.mjs`). Sharing the processes keeps
 * start-ups (PGlite's takes seconds) out of the run time. coregate carries the
 * event-loop probe (`lib/loop-probe.mjs`): its rows note how busy its loop was.
 */
import * as accounts from './accounts.mjs';
import * as accountsDpop from './accounts-dpop.mjs';
import * as accountsTraced from './accounts-traced.mjs';
import * as registration from './registration.mjs';
import * as transactions from './transactions.mjs';
import { clientWithToken, HOT_CUSTOMER_KEY } from './accounts.mjs';
import { startBareProxy, startCoregate, startSimulator } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';

export const names = [accounts.name, accountsDpop.name, accountsTraced.name, transactions.name, registration.name];
export const title = '2. Accounts hot path (bearer and DPoP-bound tokens), 3. Registration, 5. on each storage';

export async function run(ctx, selected) {
  const parts = [accounts, accountsDpop, accountsTraced, transactions, registration].filter((part) =>
    selected.includes(part.name),
  );
  const simulator = await startSimulator(ctx);
  const peers = [simulator];
  try {
    // The proxy serves until the end: the accounts figures take turns with it (accounts.mjs).
    // The DPoP row's baseline is the bearer read on the same coregate, registration's its floor.
    const proxied = parts.filter((candidate) => candidate.measureProxy);
    const proxy = proxied.length ? await startBareProxy(ctx, simulator.url, HOT_CUSTOMER_KEY) : undefined;
    try {
      const baselines = new Map();
      for (const part of proxied) {
        try {
          baselines.set(part.name, await part.measureProxy(ctx, proxy, peers));
        } catch (error) {
          ctx.results.addFailure(`${part.name} (bare proxy)`, error);
        }
      }
      for (const kind of ctx.storages) await measureOnStorage(ctx, { kind, parts, baselines, simulator, peers });
    } finally {
      await proxy?.stop();
    }
  } finally {
    await simulator.stop();
  }
}

async function measureOnStorage(ctx, { kind, parts, baselines, simulator, peers }) {
  const storage = await freshStorage(ctx, kind, `gateway_${kind}`);
  const coregate = await startCoregate(ctx, { storage, coreUrl: simulator.url, loopProbe: true });
  try {
    const { accessToken } = await clientWithToken(coregate, 'bench gateway');
    for (const part of parts.filter((candidate) => candidate.onStorage?.(ctx, kind) ?? true)) {
      try {
        await part.measureCoregate(ctx, {
          coregate,
          accessToken,
          kind,
          baseline: baselines.get(part.name),
          peers,
          simulator,
          storage,
        });
      } catch (error) {
        ctx.results.addFailure(`${part.name} (coregate, ${kind})`, error);
      }
    }
  } finally {
    await coregate.stop();
  }
}
