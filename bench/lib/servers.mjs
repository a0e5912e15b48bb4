/**
 * Starting what the scenarios measure: coregate (`bin/coregate serve`), the core
 * simulator (`bin/coregate core-sim`) and the baselines, each pinned to its CPU.
 */
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { runCommand, startProcess } from './processes.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = `${ROOT}bin/coregate`;
const BASELINES = `${ROOT}bench/baselines/`;

/** The suite's environment without anything that configures coregate, so only what a scenario sets applies. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('COREGATE_') || ['DATABASE_URL', 'CORE_URL', 'PORT', 'HOST', 'LOG_LEVEL', 'NODE_OPTIONS'].includes(name)) continue;
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

/** The core simulator over HTTP, on the load CPU (it is the server's peer, not what is measured). */
export async function startSimulator(ctx, { sessionTtlSeconds } = {}) {
  const args = [BIN, 'core-sim', '--port', '0', ...(sessionTtlSeconds ? ['--session-ttl', String(sessionTtlSeconds)] : [])];
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

/**
 * coregate on the server CPU. `storage` is `{kind: 'postgres', url}` or
 * `{kind: 'pglite', dataDir}`; `coreUrl` an external core (the simulator);
 * `nodeArgs` e.g. `--cpu-prof`.
 */
export async function startCoregate(ctx, { storage, coreUrl, env: extraEnv = {}, nodeArgs = [] }) {
  const port = await freePort();
  const env = cleanEnv({
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...RATE_LIMITS_OUT_OF_REACH,
    COREGATE_ENCRYPTION_KEY: ctx.encryptionKey,
    ...(coreUrl ? { CORE_URL: coreUrl } : {}),
    ...(storage.kind === 'postgres' ? { DATABASE_URL: storage.url } : { COREGATE_DATA_DIR: storage.dataDir }),
    ...extraEnv,
  });
  const url = `http://127.0.0.1:${port}`;
  const entry = await startProcess(`coregate (${storage.kind})`, {
    command: process.execPath,
    args: [...nodeArgs, BIN, 'serve'],
    cwd: ROOT,
    env,
    cpus: ctx.plan.pinned ? ctx.plan.server : undefined,
    // CONTRACT §1: serve is ready when the JWKS answers.
    readyCheck: () => answers(`${url}/.well-known/jwks.json`),
    timeoutMs: 90_000,
  });
  return {
    name: 'coregate',
    url,
    pid: entry.pid,
    env,
    storage: storage.kind,
    exit: entry.exit,
    stop: () => entry.stop(),
    /** `bin/coregate clients create` with the server's environment (through the server on PGlite). */
    async createClient(name, platform) {
      const result = await runCommand({
        command: process.execPath,
        args: [BIN, 'clients', 'create', '--name', name, '--platform', platform, '--json'],
        cwd: ROOT,
        env,
      });
      if (result.code !== 0) throw new Error(`clients create failed (${result.code}): ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
  };
}

async function startBaseline(ctx, name, script, { env = {}, args = [] } = {}) {
  const entry = await startProcess(name, {
    command: process.execPath,
    args: [`${BASELINES}${script}`, ...args],
    cwd: ROOT,
    env: cleanEnv(env),
    cpus: ctx.plan.pinned ? ctx.plan.server : undefined,
    readyLine: /listening on (http:\/\/\S+)/,
  });
  return { name, url: entry.match[1], pid: entry.pid, stop: () => entry.stop() };
}

export const startBareProxy = (ctx, coreUrl, customerKey) => startBaseline(ctx, 'bare proxy', 'bare-proxy.mjs', { env: { CORE_URL: coreUrl, CUSTOMER_KEY: customerKey } });
export const startRawServer = (ctx, bodyFile) => startBaseline(ctx, 'raw node:http', 'raw-server.mjs', { args: [bodyFile] });
export const startOidcProvider = (ctx, client) =>
  startBaseline(ctx, 'oidc-provider', 'oidc-provider-server.mjs', { env: { CLIENT_ID: client.client_id, CLIENT_SECRET: client.client_secret } });
