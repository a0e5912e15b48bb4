/**
 * The channel through which CLI commands reach an embedded database that a
 * running server holds: a Unix socket (mode 0600, so only the same OS user) on
 * which the server runs named admin operations (`admin-operations.ts`) and
 * answers with their JSON results. The CLI formats them as it does its own.
 */
import { createHash } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  | { readonly failed: { readonly message: string; readonly problems: ReadonlyArray<{ path: string; message: string }> } }
  | { readonly error: string };

/** Unix socket paths are limited to ~107 bytes: fall back to the temp dir for deep data dirs. */
export function adminSocketPath(dataDir: string): string {
  const inDataDir = join(dataDir, 'admin.sock');
  if (Buffer.byteLength(inDataDir) < 100) return inDataDir;
  return join(tmpdir(), `coregate-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`);
}

const MAX_REQUEST_BYTES = 64 * 1024;

async function answer(handlers: AdminHandlers, body: string): Promise<Answer> {
  try {
    const { operation, args } = JSON.parse(body) as { operation: unknown; args: unknown };
    if (!isAdminOperation(handlers, operation)) throw new Error(`unknown admin operation "${String(operation)}"`);
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new Error('admin operation arguments must be an object');
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
      void answer(handlers, body).then((result) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  server.on('close', () => rmSync(path, { force: true }));
  return server;
}

function send(path: string, operation: AdminOperationName, args: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, method: 'POST', path: '/operation', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(body) as Answer);
        } catch (error) {
          reject(error as Error);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ operation, args }));
  });
}

/** Calls one operation on the server listening on `path`. */
export async function callAdminSocket<N extends AdminOperationName>(path: string, name: N, args: AdminOperations[N]['args']): Promise<AdminOperations[N]['result']> {
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
      await callAdminSocket(path, 'ping', {});
      return { call: (name, args) => callAdminSocket(path, name, args), close: async () => {} };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ECONNREFUSED') || Date.now() >= deadline) throw error;
    }
    await sleep(100);
  }
}
