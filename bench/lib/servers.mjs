/**
 * Starting what the scenarios measure: coregate (`bin/coregate serve`), the core
 * simulator (`bin/coregate core-sim`) and the baselines, each pinned to its CPU.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, startProcess } from './processes.mjs';
import { DEFAULTS } from '../../dist/src/config/schema.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = `${ROOT}bin/coregate`;
const binOf = (root) => `${root}bin/coregate`;
const BASELINES = `${ROOT}bench/baselines/`;
const LOOP_PROBE = `${ROOT}bench/lib/loop-probe.mjs`;

/** The suite's environment without anything that configures coregate, so only what a scenario sets applies. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      name.startsWith('COREGATE_') ||
      ['DATABASE_URL', 'CORE_URL', 'PORT', 'HOST', 'LOG_LEVEL', 'NODE_ENV', 'NODE_OPTIONS'].includes(name)
    )
      continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** A port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function answers(url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
  await response.arrayBuffer();
  return response.ok;
}

/**
 * One benchmark client sends thousands of requests a second, far above any
 * sensible per-client limit. The limits are raised out of reach rather than
 * turned off (0), so that the rate limiter still runs and its cost is measured.
 */
export const RATE_LIMITS_OUT_OF_REACH = Object.freeze({
  COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '1000000000',
  COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: '1000000000',
  COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: '1000000000',
});

/**
 * coregate is measured as an operator deploys it: every setting at its default
 * (LOG_LEVEL info, audit and metrics on: they have no switch), in production
 * mode. Besides what says where coregate finds its database, its core and its
 * key, only the rate-limit budgets differ; a scenario that changes a setting
 * more (workers, a cache turned off) names it in its row.
 */
export const DEPLOYED_AS = Object.freeze({ NODE_ENV: 'production' });

/** What the run's output says about the configuration measured. */
export const CONFIGURATION = Object.freeze({
  settings: { ...DEPLOYED_AS },
  differences: { ...RATE_LIMITS_OUT_OF_REACH },
  summary:
    'coregate at its defaults in production mode (NODE_ENV=production; LOG_LEVEL info, request logs written to a file, audit and metrics on). ' +
    'The one difference: the rate-limit budgets (COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE, _TOKEN_PER_MINUTE, _TOKEN_IP_PER_MINUTE) are raised to 10⁹/minute, ' +
    'still counted, so that one load generator is not throttled. Settings a scenario changes besides are named in its row.',
});

/** The core simulator over HTTP, on the load CPU (it is the server's peer, not what is measured). */
export async function startSimulator(ctx, { sessionTtlSeconds } = {}) {
  const args = [
    BIN,
    'core-sim',
    '--port',
    '0',
    ...(sessionTtlSeconds ? ['--session-ttl', String(sessionTtlSeconds)] : []),
  ];
  const entry = await startProcess('core simulator', {
    command: process.execPath,
    args,
    cwd: ROOT,
    env: cleanEnv(),
    cpus: ctx.plan.pinned ? ctx.plan.load : undefined,
    readyLine: /core simulator listening on (http:\/\/\S+)/,
  });
  const url = entry.match[1];
  const control = async (method, path) => {
    const response = await fetch(`${url}${path}`, { method });
    if (!response.ok) throw new Error(`simulator ${method} ${path}: ${response.status}`);
    return response.json();
  };
  return {
    name: 'core simulator',
    url,
    pid: entry.pid,
    stats: () => control('GET', '/_sim/stats'),
    expireAll: () => control('POST', '/_sim/sessions/expire'),
    stop: () => entry.stop(),
  };
}

let logFiles = 0;

/** `{active, idle}` ms from a server's loop probe (`loop-probe.mjs`), or undefined when it does not answer. */
async function readLoopProbe(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return await response.json();
  } catch {
    return undefined;
  }
}

/**
 * coregate on the server CPU (on `cpus`, when given). `storage` is `{kind: 'postgres', url}` or
 * `{kind: 'pglite', dataDir}`; `coreUrl` an external core (the simulator);
 * `env` settings that differ from the defaults (recorded as `settings`); `nodeArgs` e.g. `--cpu-prof`;
 * `root` another build of coregate (a checkout with its own dist/, `--compare`);
 * `loopProbe` preloads `loop-probe.mjs`, so that `eventLoop()` reads how long its event loop
 * has been busy and idle (a diagnostic of the suite, not a setting: it is not in `settings`).
 * Its logs (stderr, JSON lines at the default level) go to a file in the run's
 * temporary directory, deleted when it stops (see `startProcess`).
 */
/**
 * The Fineract stand-in (`coregate fineract-sim`, docs/cores/fineract.md) on the load CPU, like
 * the simulator: `stats()` counts the Fineract calls it has answered.
 */
export async function startFineractSim(ctx) {
  const entry = await startProcess('Fineract stand-in', {
    command: process.execPath,
    args: [BIN, 'fineract-sim', '--port', '0'],
    cwd: ROOT,
    env: cleanEnv(),
    cpus: ctx.plan.pinned ? ctx.plan.load : undefined,
    readyLine: /Fineract stand-in listening on (http:\/\/\S+)/,
  });
  const url = entry.match[1];
  return {
    name: 'Fineract stand-in',
    url,
    pid: entry.pid,
    stats: async () => {
      const response = await fetch(`${new URL(url).origin}/_sim/stats`);
      if (!response.ok) throw new Error(`Fineract stand-in GET /_sim/stats: ${response.status}`);
      return response.json();
    },
    stop: () => entry.stop(),
  };
}

export async function startCoregate(
  ctx,
  { storage, coreUrl, env: extraEnv = {}, nodeArgs = [], cpus, root = ROOT, loopProbe = false },
) {
  const port = await freePort();
  const probePort = loopProbe ? await freePort() : undefined;
  const env = cleanEnv({
    PORT: String(port),
    HOST: '127.0.0.1',
    ...DEPLOYED_AS,
    ...RATE_LIMITS_OUT_OF_REACH,
    COREGATE_ENCRYPTION_KEY: ctx.encryptionKey,
    ...(coreUrl ? { CORE_URL: coreUrl } : {}),
    ...(storage.kind === 'postgres' ? { DATABASE_URL: storage.url } : { COREGATE_DATA_DIR: storage.dataDir }),
    ...(probePort ? { BENCH_LOOP_PROBE_PORT: String(probePort) } : {}),
    ...extraEnv,
  });
  const url = `http://127.0.0.1:${port}`;
  const workers = Number(extraEnv.COREGATE_WORKERS ?? 1);
  const entry = await startProcess(`coregate (${storage.kind})`, {
    command: process.execPath,
    args: [...nodeArgs, ...(probePort ? [`--import=${LOOP_PROBE}`] : []), binOf(root), 'serve'],
    cwd: root,
    env,
    cpus: cpus ?? (ctx.plan.pinned ? ctx.plan.server : undefined),
    logFile: join(ctx.tmpDir, `coregate-${++logFiles}.log`),
    // CONTRACT §1: serve is ready when the JWKS answers; with workers, once the supervisor says all of them serve.
    ...(workers > 1
      ? { readyLine: /"msg":"all \d+ workers serving"/ }
      : { readyCheck: () => answers(`${url}/.well-known/jwks.json`) }),
    timeoutMs: 90_000,
  });
  return {
    name: 'coregate',
    url,
    pid: entry.pid,
    env,
    /** The settings this server runs with beyond the suite's common ones. */
    settings: { ...extraEnv },
    storage: storage.kind,
    exit: entry.exit,
    stop: () => entry.stop(),
    /** With `loopProbe`: the event loop's busy and idle ms so far (`performance.eventLoopUtilization()`); else undefined. */
    eventLoop: probePort ? () => readLoopProbe(probePort) : undefined,
    /** `bin/coregate clients create` with the server's environment (through the server on PGlite). */
    async createClient(name, platform) {
      const result = await runCommand({
        command: process.execPath,
        args: [binOf(root), 'clients', 'create', '--name', name, '--platform', platform, '--json'],
        cwd: root,
        env,
      });
      if (result.code !== 0) throw new Error(`clients create failed (${result.code}): ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
  };
}

async function startBaseline(ctx, name, script, { env = {}, args = [], timeoutMs } = {}) {
  const entry = await startProcess(name, {
    command: process.execPath,
    args: [`${BASELINES}${script}`, ...args],
    cwd: ROOT,
    env: cleanEnv(env),
    cpus: ctx.plan.pinned ? ctx.plan.server : undefined,
    readyLine: /listening on (http:\/\/\S+)/,
    timeoutMs,
  });
  return { name, url: entry.match[1], pid: entry.pid, stop: () => entry.stop() };
}

export const startBareProxy = (ctx, coreUrl, customerKey) =>
  startBaseline(ctx, 'bare proxy', 'bare-proxy.mjs', { env: { CORE_URL: coreUrl, CUSTOMER_KEY: customerKey } });
/** The audited-read floor (`baselines/bare-proxy.mjs` with `AUDIT=1`) on `storage`, like the registration floor. */
export const startAuditedReadFloor = (ctx, coreUrl, customerKey, storage) =>
  startBaseline(ctx, 'audited-read floor', 'bare-proxy.mjs', {
    env: { CORE_URL: coreUrl, CUSTOMER_KEY: customerKey, AUDIT: '1', ...floorStorageEnv(storage) },
    timeoutMs: 90_000,
  });
/** A floor's database: coregate's kind of storage, on PostgreSQL with a pool of coregate's default size. */
const floorStorageEnv = (storage) =>
  storage.kind === 'postgres'
    ? { DATABASE_URL: storage.url, POOL_SIZE: String(DEFAULTS.COREGATE_DB_POOL_MAX) }
    : { DATA_DIR: storage.dataDir };
/**
 * The floor of registration (`baselines/registration-floor.mjs`) in front of the simulator at
 * `coreUrl`, on `storage` as coregate gets it (`storage.mjs`): on PostgreSQL with a pool of
 * coregate's default size (`COREGATE_DB_POOL_MAX`), on PGlite in its own process.
 */
export const startRegistrationFloor = (ctx, coreUrl, storage) =>
  startBaseline(ctx, 'registration floor', 'registration-floor.mjs', {
    env: { CORE_URL: coreUrl, ...floorStorageEnv(storage) },
    // Making a PGlite cluster takes seconds, more on a busy machine (coregate is given as long).
    timeoutMs: 90_000,
  });
export const startRawServer = (ctx, bodyFile) =>
  startBaseline(ctx, 'raw node:http', 'raw-server.mjs', { args: [bodyFile] });
export const startOidcProvider = (ctx, client) =>
  startBaseline(ctx, 'oidc-provider', 'oidc-provider-server.mjs', {
    env: { CLIENT_ID: client.client_id, CLIENT_SECRET: client.client_secret },
  });
