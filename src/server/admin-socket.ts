/**
 * The channel through which CLI commands reach an embedded database that a
 * running server holds: a Unix socket on which the server runs named admin
 * operations (`admin-operations.ts`) and answers with their JSON results. The CLI
 * formats them as it does its own.
 *
 * What travels on it is the operator's (a bank's core API key, new client secrets),
 * so the socket lives only in a directory its owner alone can enter: the data dir
 * (mode 0700), or for a data dir too deep for a socket path a private directory
 * the server makes (`mkdtemp`, mode 0700) and names in the data-dir lock. Before it
 * speaks, the CLI checks that the socket and its directory are its own user's and
 * closed to everyone else, so a socket planted by another local user is refused.
 */
import { chmodSync, lstatSync, mkdtempSync, rmSync, type Stats } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { currentHolder } from '../adapters/store/data-dir-lock.js';
import {
  AdminOperationFailed,
  executeAdminOperation,
  isAdminOperation,
  type AdminClient,
  type AdminHandlers,
  type AdminOperationName,
  type AdminOperations,
} from './admin-operations.js';

/** What travels back: the result, a use case's refusal, or an unexpected error's message. */
type Answer =
  | { readonly result: unknown }
  | {
      readonly failed: {
        readonly message: string;
        readonly problems: ReadonlyArray<{ path: string; message: string }>;
      };
    }
  | { readonly error: string };

/** A Unix socket path must fit `sun_path` (108 bytes on Linux, 104 on macOS, with its NUL). */
const MAX_SOCKET_PATH_BYTES = 100;

/** Where the server's admin socket lives, and how to remove the private directory made for it. */
export interface AdminSocketPlace {
  readonly path: string;
  /** Removes the directory made for the socket (nothing when it is in the data dir). */
  dispose(): void;
}

/**
 * The data dir's `admin.sock` when that path fits a socket address; else a fresh
 * private directory under the OS temp dir (`mkdtemp` makes it 0700 with a name no
 * one can guess or take first), removed by `dispose`.
 */
export function adminSocketPlace(dataDir: string): AdminSocketPlace {
  const inDataDir = join(dataDir, 'admin.sock');
  if (Buffer.byteLength(inDataDir) < MAX_SOCKET_PATH_BYTES) return { path: inDataDir, dispose: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'cg-'));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  chmodSync(dir, 0o700);
  const path = join(dir, 'admin.sock');
  if (Buffer.byteLength(path) >= MAX_SOCKET_PATH_BYTES) {
    dispose();
    throw new Error(
      `no place for the admin socket: ${inDataDir} and ${path} are longer than a Unix socket path may be; use a shorter COREGATE_DATA_DIR or TMPDIR`,
    );
  }
  return { path, dispose };
}

/** A mode as `ls` and `chmod` write it: `0755`. */
function octal(stats: Stats): string {
  return `0${(stats.mode & 0o777).toString(8).padStart(3, '0')}`;
}

/** Why `stats` (of `what`) is not this user's alone, or `undefined` when it is. */
function notPrivate(what: string, stats: Stats, uid: number): string | undefined {
  if (stats.uid !== uid) return `${what} belongs to uid ${stats.uid}, not to this user (uid ${uid})`;
  if ((stats.mode & 0o077) !== 0) return `${what} has mode ${octal(stats)}, open to other users`;
  return undefined;
}

/**
 * Why the socket at `path` may not be trusted with an operation: it or its directory
 * is not this user's, or others may enter or open it. `undefined` when it is safe.
 * Throws the file system's error (ENOENT while a server is starting).
 */
function adminSocketProblem(path: string): string | undefined {
  const uid = process.getuid?.();
  // No user ids (Windows): no Unix sockets there either.
  if (uid === undefined) return undefined;
  const dir = dirname(path);
  const dirStats = lstatSync(dir);
  if (!dirStats.isDirectory()) return `${dir} is not a directory`;
  const dirProblem = notPrivate(`its directory ${dir}`, dirStats, uid);
  if (dirProblem) return dirProblem;
  const stats = lstatSync(path);
  if (!stats.isSocket()) return 'it is not a socket';
  return notPrivate('it', stats, uid);
}

/** The CLI refuses to speak to an admin socket someone else could have planted or can reach. */
export class AdminSocketRefused extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(
      `refusing the admin socket ${path}: ${problem} (the socket and its directory must be the server's user's, mode 0700/0600)`,
    );
  }
}

const MAX_REQUEST_BYTES = 64 * 1024;

async function answer(handlers: AdminHandlers, body: string): Promise<Answer> {
  try {
    const { operation, args } = JSON.parse(body) as { operation: unknown; args: unknown };
    if (!isAdminOperation(handlers, operation)) throw new Error(`unknown admin operation "${String(operation)}"`);
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new Error('admin operation arguments must be an object');
    return { result: await executeAdminOperation(handlers, operation, args as never) };
  } catch (error) {
    if (error instanceof AdminOperationFailed) return { failed: { message: error.message, problems: error.problems } };
    return { error: (error as Error).message };
  }
}

/** Serves the operations on `path` until the returned server is closed. */
export async function serveAdminSocket(path: string, handlers: AdminHandlers): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_REQUEST_BYTES) req.destroy();
    });
    req.on('end', () => {
      void answer(handlers, body).then((result) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result)),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  server.on('close', () => rmSync(path, { force: true }));
  // The CLI refuses a socket it cannot trust: a server whose socket it would refuse does not start.
  const problem = adminSocketProblem(path);
  if (problem) {
    await new Promise((resolve) => server.close(resolve));
    throw new AdminSocketRefused(path, problem);
  }
  return server;
}

function send(path: string, operation: AdminOperationName, args: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: path, method: 'POST', path: '/operation', headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          try {
            resolve(JSON.parse(body) as Answer);
          } catch (error) {
            reject(error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ operation, args }));
  });
}

/** Calls one operation on the server listening on `path`. */
export async function callAdminSocket<N extends AdminOperationName>(
  path: string,
  name: N,
  args: AdminOperations[N]['args'],
): Promise<AdminOperations[N]['result']> {
  const reply = await send(path, name, args);
  if ('failed' in reply) throw new AdminOperationFailed(reply.failed.message, reply.failed.problems);
  if ('error' in reply) throw new Error(reply.error);
  return reply.result as AdminOperations[N]['result'];
}

/** How long a command waits for a starting server's admin socket (migrations and keys come first). */
const SERVER_START_WAIT_MS = 30_000;

/**
 * A client of the server that holds the data dir; `undefined` when no server
 * holds it. A server takes the data dir before its admin socket listens, and closes
 * the socket before releasing the data dir: while the holder lives without a socket,
 * wait rather than fail.
 */
export async function connectToServer(dataDir: string): Promise<AdminClient | undefined> {
  const deadline = Date.now() + SERVER_START_WAIT_MS;
  for (;;) {
    const holder = currentHolder(dataDir);
    if (holder?.role !== 'server' || !holder.adminSocket) return undefined;
    const path = holder.adminSocket;
    try {
      const problem = adminSocketProblem(path);
      if (problem) throw new AdminSocketRefused(path, problem);
      await callAdminSocket(path, 'ping', {});
      return { call: (name, args) => callAdminSocket(path, name, args), close: async () => {} };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ECONNREFUSED') || Date.now() >= deadline) throw error;
    }
    await sleep(100);
  }
}
