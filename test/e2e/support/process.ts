/**
 * Real coregate processes for end-to-end tests: `node bin/coregate …` with its
 * configuration in environment variables, exactly as an operator runs it. Every
 * process started here is tracked and killed when the test file ends, so a failing
 * test never leaves a server holding a port or a data directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs from `dist/test/e2e/support/`). */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'coregate');

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export type Env = Record<string, string>;

/**
 * The test runner's environment without any coregate setting, plus `env`: each
 * process is configured only by what the test says.
 */
export function processEnv(env: Env): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const setting =
      /^(COREGATE_|DATABASE_URL$|PORT$|HOST$|CORE_URL$|LOG_LEVEL$)/.test(name) && !name.startsWith('COREGATE_TEST_');
    if (!setting) base[name] = value;
  }
  return { ...base, ...env };
}

/**
 * A fresh data directory, removed by the returned function. Under the test runner its
 * embedded cluster (`pg/`) starts as a copy of the run's migrated, empty template cluster
 * (scripts/run-tests.mjs): the same state a first start reaches (no clients, no keys, no
 * encryption key file) without initdb's seconds of CPU in every spawned process. `empty`
 * leaves it empty, for what a first start does to a bare directory.
 */
export function tempDataDir(options: { empty?: boolean } = {}): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'cg-e2e-'));
  if (!options.empty) seedDataDir(dir);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Gives the data directory `dir` (made if missing) a copy of the run's template cluster, as {@link tempDataDir} does. */
export function seedDataDir(dir: string): void {
  const template = process.env['COREGATE_TEST_PGLITE_TEMPLATE_DIR'];
  if (template) cpSync(template, join(dir, 'pg'), { recursive: true });
}

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

function track(child: ChildProcess): Promise<Exit> {
  running.add(child);
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what()}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface CliResult extends Exit {
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `bin/coregate ...args` of `root` (this checkout unless given) to completion (killed after `timeoutMs`). */
export async function runCli(
  args: readonly string[],
  env: Env,
  timeoutMs = 60_000,
  root: string = ROOT,
): Promise<CliResult> {
  const child = spawn(process.execPath, [join(root, 'bin', 'coregate'), ...args], {
    cwd: root,
    env: processEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = track(child);
  try {
    const exit = await withTimeout(exited, timeoutMs, () => `coregate ${args.join(' ')}\n${stderr}`);
    return { ...exit, stdout, stderr };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Runs a command that prints one JSON document and must succeed; returns the document. */
export async function runJson<T = unknown>(args: readonly string[], env: Env, timeoutMs?: number): Promise<T> {
  const result = await runCli(args, env, timeoutMs);
  if (result.code !== 0) throw new Error(`coregate ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Everything the server wrote to stderr so far (pino JSON lines). */
  stderr(): string;
  /** Resolves when the process exits, however that happens. */
  readonly exited: Promise<Exit>;
  /** SIGTERM, then the exit status (SIGKILL and a rejection after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<Exit>;
  kill(): void;
}

const LISTENING = /^coregate listening on (http:\/\/\S+)$/;

/** The listening URL announced in pino's JSON log lines, if any. */
function listeningUrl(stderr: string): string | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const match = LISTENING.exec(String((JSON.parse(line) as { msg?: unknown }).msg));
      if (match) return match[1];
    } catch {
      // a partial line: the rest comes with the next chunk
    }
  }
  return undefined;
}

/** Whether the server answers `GET /.well-known/jwks.json` (ready, docs/behaviour.md#commands). */
async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/.well-known/jwks.json`, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

export interface SpawnedServer {
  readonly pid: number;
  stderr(): string;
  readonly exited: Promise<Exit>;
  /** Waits until the server announced its URL and answers the JWKS; kills it and rejects otherwise. */
  ready(timeoutMs?: number): Promise<ServerProcess>;
  kill(): void;
}

/**
 * Spawns `bin/coregate serve` (PORT=0 unless given) without waiting for it; `root` is the
 * installation to run (this checkout unless given: another one, installed by a test).
 */
export function spawnServer(env: Env, root: string = ROOT): SpawnedServer {
  const child = spawn(process.execPath, [join(root, 'bin', 'coregate'), 'serve'], {
    cwd: root,
    env: processEnv({ PORT: '0', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = track(child);
  let exit: Exit | undefined;
  void exited.then((result) => (exit = result));
  const kill = () => {
    child.kill('SIGKILL');
  };

  async function ready(timeoutMs = 60_000): Promise<ServerProcess> {
    const deadline = Date.now() + timeoutMs;
    let url: string | undefined;
    while (Date.now() < deadline && exit === undefined) {
      url ??= listeningUrl(stderr);
      if (url !== undefined && (await isReady(url))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (exit !== undefined || url === undefined || Date.now() >= deadline) {
      kill();
      const why = exit ? `exited with ${exit.code ?? exit.signal}` : `not ready within ${timeoutMs} ms`;
      throw new Error(`coregate serve ${why}:\n${stderr}`);
    }
    return {
      url,
      pid: child.pid!,
      stderr: () => stderr,
      exited,
      async stop(stopTimeoutMs = 12_000) {
        child.kill('SIGTERM');
        try {
          return await withTimeout(exited, stopTimeoutMs, () => `coregate serve did not exit after SIGTERM\n${stderr}`);
        } catch (error) {
          kill();
          throw error;
        }
      },
      kill,
    };
  }

  return { pid: child.pid!, stderr: () => stderr, exited, ready, kill };
}

/**
 * Starts `bin/coregate serve` (PORT=0 unless given) and waits until it is ready.
 * Rejects, with the server's output, if it exits or is not ready within `timeoutMs`.
 */
export function startServer(env: Env, timeoutMs = 60_000): Promise<ServerProcess> {
  return spawnServer(env).ready(timeoutMs);
}

/** The messages of a server's warn-level log lines so far. */
function warnings(server: { stderr(): string }): string[] {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((line) => line.level === 40)
    .map((line) => line.msg);
}

/**
 * A server's warnings once each of `expected` is among them, or after `timeoutMs`: the start
 * lines are written at once, but reach this end of the pipe a moment after the server answers.
 */
export async function startWarnings(
  server: { stderr(): string },
  expected: readonly RegExp[],
  timeoutMs = 2_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !expected.every((pattern) => warnings(server).some((msg) => pattern.test(msg)))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return warnings(server);
}

/** Kills whatever is still running: call from `after()` of every e2e file. */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** RFC 6749 §2.3.1 Basic credentials. */
export function basicAuth(id: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

export interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** `POST /oauth2/token` with client_credentials (or other form parameters). */
export async function requestToken(
  url: string,
  client: { client_id: string; client_secret: string },
  form = 'grant_type=client_credentials',
): Promise<TokenAnswer> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(client.client_id, client.client_secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: form,
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The six keys `clients create` and `rotate-secret` print (docs/behaviour.md#cli-commands). */
export interface CreatedClient {
  readonly client_id: string;
  readonly client_secret: string;
  readonly platform: string;
  readonly scopes: string[];
  readonly grants: string[];
  readonly allowed_ips: string[];
}
