/**
 * `npm run bench -- --compare REF`: this checkout's coregate beside the build of
 * another commit, on the token and accounts hot paths (and, asked for with `--only`,
 * registration in Form B), both serving all along and measured in rounds taken in
 * turn (`measurePair`). It is how a performance commit
 * states its before/after ratio: on a shared machine two runs minutes apart compare
 * the moments as much as the code, rounds taken in turn see the same drift.
 */
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { checkTokenEndpoint, tokenRequest } from './checks.mjs';
import { measurePair } from './measure.mjs';
import { onInterrupt, runCommand } from './processes.mjs';
import { ROOT, startCoregate, startSimulator } from './servers.mjs';
import { freshStorage } from './storage.mjs';
import { clientWithToken, coregateWithHotCustomer } from '../scenarios/accounts.mjs';
import { checkCoregateFormB, registrationSpec } from '../scenarios/registration.mjs';

export const COMPARABLE = ['token', 'accounts', 'registration'];

/** What `--compare` measures without `--only`: the hot paths; a change to registration names it. */
export const COMPARED_BY_DEFAULT = ['token', 'accounts'];

async function run(what, command, args, cwd) {
  const result = await runCommand({ command, args, cwd, timeoutMs: 300_000 });
  if (result.code !== 0)
    throw new Error(
      `${what} failed (${result.code ?? result.signal}): ${(result.stderr || result.stdout).trim().slice(-2000)}`,
    );
  return result.stdout.trim();
}

/**
 * A detached git worktree of `ref` in the run's temporary directory, sharing this
 * checkout's node_modules (the dependencies of `ref` must be the same ones: a
 * commit that changes them is compared by installing it elsewhere), built with
 * this checkout's TypeScript. Removed by `remove()`, and on an interrupt.
 */
export async function buildOf(ctx, ref) {
  const commit = await run(`git rev-parse ${ref}`, 'git', ['rev-parse', '--verify', `${ref}^{commit}`], ROOT);
  const dir = join(ctx.tmpDir, `compare-${commit.slice(0, 12)}`);
  const remove = () =>
    runCommand({ command: 'git', args: ['worktree', 'remove', '--force', dir], cwd: ROOT }).catch(() => {});
  onInterrupt(remove);
  await run('git worktree add', 'git', ['worktree', 'add', '--detach', dir, commit], ROOT);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  ctx.log(`compare: building ${ref} (${commit.slice(0, 12)})`);
  // Each project the tree of `ref` has: older trees have no SDK package.
  for (const project of ['packages/client/tsconfig.json', 'tsconfig.json'].filter((path) =>
    existsSync(join(dir, path)),
  )) {
    await run(`building ${ref}`, process.execPath, [tsc, '-p', project], dir);
  }
  return { root: `${dir}/`, ref, commit, remove };
}

/** Token issuance on each build: its own database, its own client. */
async function tokenSide(ctx, root, label) {
  const storage = await freshStorage(ctx, ctx.primaryStorage, `compare_token_${label}`);
  const coregate = await startCoregate(ctx, { storage, root });
  try {
    const client = await coregate.createClient('bench compare', 'bench');
    await checkTokenEndpoint({
      what: `${label} POST /oauth2/token`,
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
}

/** The accounts hot path on each build, in front of one shared simulator. */
async function accountsSide(ctx, root, label, simulator) {
  const storage = await freshStorage(ctx, ctx.primaryStorage, `compare_accounts_${label}`);
  return coregateWithHotCustomer(ctx, { storage, coreUrl: simulator.url, root });
}

/**
 * Registration in Form B on each build (a new customerId each request), in front of one shared
 * simulator, with the event-loop probe (`loop-probe.mjs`): how busy each one's loop was.
 */
async function registrationSide(ctx, root, label, simulator) {
  const storage = await freshStorage(ctx, ctx.primaryStorage, `compare_registration_${label}`);
  const coregate = await startCoregate(ctx, { storage, coreUrl: simulator.url, root, loopProbe: true });
  try {
    const { accessToken } = await clientWithToken(coregate, 'bench compare');
    await checkCoregateFormB(coregate, accessToken);
    return { coregate, spec: registrationSpec(coregate.url, { accessToken, tag: `compare-${label}-${ctx.runId}` }) };
  } catch (error) {
    await coregate.stop();
    throw error;
  }
}

const SIDES = { token: tokenSide, accounts: accountsSide, registration: registrationSide };

/**
 * Both builds serving, measured in rounds taken in turn (`measurePair`). Whichever server
 * starts first measured 3–7% cheaper in A/A runs (the same commit on both sides), so the
 * rounds are split into two halves with the start order swapped (each half starts both
 * servers afresh), and added up.
 */
async function comparePath(ctx, path, base) {
  const rounds = ctx.durations.rounds;
  const halves = [];
  for (const [index, baseFirst] of [false, true].entries()) {
    const share = index === 0 ? Math.ceil(rounds / 2) : Math.floor(rounds / 2);
    if (share === 0) continue;
    const durations = { ...ctx.durations, rounds: share, measured: (ctx.durations.measured / rounds) * share };
    halves.push(await compareOnce({ ...ctx, durations }, path, base, baseFirst));
  }
  return { path, pair: addHalves(halves) };
}

async function compareOnce(ctx, path, base, baseFirst) {
  const simulator = path === 'token' ? undefined : await startSimulator(ctx);
  // Each half starts on fresh storage of its own.
  const start = (root, label) => SIDES[path](ctx, root, `${label}_${baseFirst ? 2 : 1}`, simulator);
  const started = {};
  try {
    for (const label of baseFirst ? ['base', 'this'] : ['this', 'base'])
      started[label] = await start(label === 'base' ? base.root : ROOT, label);
    const peers = simulator ? [simulator] : [];
    ctx.log(
      `compare ${path}: this checkout and ${base.ref} serve (${baseFirst ? base.ref : 'this checkout'} started first); in turns`,
    );
    return await measurePair(ctx, {
      subject: { server: started.this.coregate, peers, spec: started.this.spec },
      baseline: { server: started.base.coregate, peers, spec: started.base.spec },
    });
  } finally {
    for (const side of Object.values(started)) await side.coregate.stop();
    await simulator?.stop();
  }
}

/**
 * Two halves of a comparison as one: requests, time and CPU summed; the p99 is the larger of the
 * halves'; the event loop's busy share over both, when it was probed.
 */
function addHalves(halves) {
  const side = (name) => {
    const parts = halves.map((half) => half[name]);
    const responses = parts.reduce((sum, part) => sum + part.responses, 0);
    const seconds = parts.reduce((sum, part) => sum + part.seconds, 0);
    const cpu = parts.every((part) => part.cpuMicrosPerRequest !== undefined)
      ? parts.reduce((sum, part) => sum + part.cpuMicrosPerRequest * part.responses, 0) / responses
      : undefined;
    return {
      responses,
      requestsPerSecond: responses / seconds,
      cpuMicrosPerRequest: cpu,
      p99: Math.max(...parts.map((part) => part.latencyMs?.p99 ?? 0)),
      failed: parts.reduce((sum, part) => sum + part.non2xx + part.errors, 0),
      eventLoopUtilisation: parts.every((part) => part.eventLoop)
        ? parts.reduce((sum, part) => sum + part.eventLoop.busyMs, 0) /
          parts.reduce((sum, part) => sum + part.eventLoop.busyMs + part.eventLoop.idleMs, 0)
        : undefined,
    };
  };
  return {
    subject: side('subject'),
    baseline: side('baseline'),
    roundRatios: halves.flatMap((half) => half.roundRatios),
  };
}

const fixed = (value, digits) => (value === undefined ? '—' : value.toFixed(digits));
const percent = (share) => (share === undefined ? '—' : `${Math.round(share * 100)}%`);

/** One line per path: CPU µs per request of each build, their ratio (below 1: this checkout is cheaper), req/s by round. */
export function formatComparison(base, comparisons) {
  const lines = [
    `this checkout vs ${base.ref} (${base.commit.slice(0, 12)}), CPU µs per request of the server process; ratio < 1: cheaper now`,
  ];
  for (const { path, pair, error } of comparisons) {
    if (error) {
      lines.push(`  ${path.padEnd(12)} failed: ${error}`);
      continue;
    }
    const now = pair.subject.cpuMicrosPerRequest;
    const before = pair.baseline.cpuMicrosPerRequest;
    const rounds = pair.roundRatios.map((ratio) => fixed(ratio, 2)).join(' ');
    const failures = pair.subject.failed + pair.baseline.failed;
    lines.push(
      `  ${path.padEnd(12)} ${fixed(before, 1)} -> ${fixed(now, 1)} µs (${fixed(now / before, 3)}×); ` +
        `req/s ${fixed(pair.baseline.requestsPerSecond, 0)} -> ${fixed(pair.subject.requestsPerSecond, 0)}, ratio by round ${rounds}; ` +
        `p99 ${fixed(pair.baseline.p99, 1)} -> ${fixed(pair.subject.p99, 1)} ms` +
        (pair.subject.eventLoopUtilisation === undefined
          ? ''
          : `; event loop busy ${percent(pair.baseline.eventLoopUtilisation)} -> ${percent(pair.subject.eventLoopUtilisation)}`) +
        (failures ? `; ${failures} failed requests` : ''),
    );
  }
  return lines.join('\n');
}

/** Runs the comparison of `paths`; resolves with the text to print and whether a path failed. */
export async function compareWith(ctx, ref, paths) {
  const base = await buildOf(ctx, ref);
  try {
    const comparisons = [];
    for (const path of paths) {
      try {
        comparisons.push(await comparePath(ctx, path, base));
      } catch (error) {
        ctx.log(`compare ${path} failed: ${error.stack ?? error}`);
        comparisons.push({ path, error: error.message.split('\n')[0] });
      }
    }
    const failed = comparisons.some(
      (entry) => entry.error || entry.pair.subject.failed + entry.pair.baseline.failed > 0,
    );
    return { text: formatComparison(base, comparisons), failed };
  } finally {
    await base.remove();
  }
}
