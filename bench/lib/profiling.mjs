/**
 * CPU profiles of coregate on the token, accounts, registration and transactions scenarios: the same load as
 * the measured runs, with coregate under `node --cpu-prof`. Profiled runs are
 * not measured figures (the profiler costs CPU); only the samples taken during
 * the measured window count.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { clientWithToken, coregateWithHotCustomer } from '../scenarios/accounts.mjs';
import { prepareDpopRead } from '../scenarios/accounts-dpop.mjs';
import { registrationSpec } from '../scenarios/registration.mjs';
import { prepareTransactions } from '../scenarios/transactions.mjs';
import { checkTokenEndpoint, tokenRequest } from './checks.mjs';
import { summariseProfile } from './cpu-profile.mjs';
import { startCoregate, startSimulator, ROOT } from './servers.mjs';
import { freshStorage } from './storage.mjs';

export const PROFILE_DIR = join(ROOT, 'bench', 'results');

const TRIM_MS = 250;

/** Loads coregate like `measure()` does and returns the measured window, in ms since the process started. */
async function loadWindow(ctx, spec, startedAt) {
  await ctx.load.load({ ...spec, seconds: ctx.durations.warmup });
  const fromMs = Date.now() - startedAt + TRIM_MS;
  await ctx.load.load({ ...spec, seconds: ctx.durations.measured });
  const toMs = Date.now() - startedAt - TRIM_MS;
  return { fromMs, toMs };
}

async function profiled(ctx, name, start) {
  mkdirSync(PROFILE_DIR, { recursive: true });
  const file = join(PROFILE_DIR, `${name}.cpuprofile`);
  rmSync(file, { force: true });
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}.cpuprofile`];
  const startedAt = Date.now();
  const { coregate, spec } = await start(nodeArgs);
  let window;
  try {
    window = await loadWindow(ctx, spec, startedAt);
  } finally {
    const exit = await coregate.stop();
    if (exit?.code !== 0) ctx.log(`profile ${name}: coregate exited with ${JSON.stringify(exit)}`);
  }
  if (!existsSync(file)) return { error: `${file} was not written (coregate did not exit cleanly)` };
  return { file: `bench/results/${name}.cpuprofile`, window, ...summariseProfile(file, { window }) };
}

export async function profileToken(ctx) {
  return profiled(ctx, 'token', async (nodeArgs) => {
    const storage = await freshStorage(ctx, ctx.primaryStorage, 'profile_token');
    const coregate = await startCoregate(ctx, { storage, nodeArgs });
    try {
      const client = await coregate.createClient('bench profile', 'bench');
      await checkTokenEndpoint({
        what: 'coregate POST /oauth2/token',
        tokenUrl: `${coregate.url}/oauth2/token`,
        jwksUrl: `${coregate.url}/.well-known/jwks.json`,
        issuer: coregate.url,
        client,
      });
      return { coregate, spec: { origin: coregate.url, path: '/oauth2/token', ...tokenRequest(client) } };
    } catch (error) {
      await coregate.stop();
      throw error;
    }
  });
}

export async function profileAccounts(ctx) {
  const simulator = await startSimulator(ctx);
  try {
    return await profiled(ctx, 'accounts', async (nodeArgs) => {
      const storage = await freshStorage(ctx, ctx.primaryStorage, 'profile_accounts');
      const { coregate, spec } = await coregateWithHotCustomer(ctx, { storage, coreUrl: simulator.url, nodeArgs });
      return { coregate, spec };
    });
  } finally {
    await simulator.stop();
  }
}

/**
 * A profile of coregate in front of a simulator, on fresh storage of the primary kind, with a
 * client and its bearer token: `specOf(coregate, accessToken)` is the load.
 */
async function profiledWithClient(ctx, name, specOf) {
  const simulator = await startSimulator(ctx);
  try {
    return await profiled(ctx, name, async (nodeArgs) => {
      const storage = await freshStorage(ctx, ctx.primaryStorage, `profile_${name.replace(/\W/g, '_')}`);
      const coregate = await startCoregate(ctx, { storage, coreUrl: simulator.url, nodeArgs });
      try {
        const { accessToken } = await clientWithToken(coregate, 'bench profile');
        return { coregate, spec: await specOf(coregate, accessToken) };
      } catch (error) {
        await coregate.stop();
        throw error;
      }
    });
  } finally {
    await simulator.stop();
  }
}

/** The accounts read with a DPoP-bound token, a proof per request (`scenarios/accounts-dpop.mjs`). */
export async function profileAccountsDpop(ctx) {
  return profiledWithClient(
    ctx,
    'accounts-dpop',
    async (coregate, accessToken) => (await prepareDpopRead(ctx, coregate, accessToken, `profile-${ctx.runId}`)).spec,
  );
}

/** Registration in Form B, the form its target is measured in (`scenarios/registration.mjs`). */
export async function profileRegistration(ctx) {
  return profiledWithClient(ctx, 'registration', async (coregate, accessToken) =>
    registrationSpec(coregate.url, { accessToken, tag: `profile-${ctx.runId}` }),
  );
}

/** A page of 100 transactions and a sync of the unchanged account (`scenarios/transactions.mjs`). */
export async function profileTransactions(ctx) {
  return profiledWithClient(ctx, 'transactions', async (coregate, accessToken) => {
    const { page } = await prepareTransactions(ctx, coregate, accessToken);
    return page;
  });
}

export async function profileTransactionsSync(ctx) {
  return profiledWithClient(ctx, 'transactions-sync', async (coregate, accessToken) => {
    const { sync } = await prepareTransactions(ctx, coregate, accessToken);
    return sync;
  });
}
