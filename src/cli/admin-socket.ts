/**
 * The channel through which CLI commands reach an embedded database that a
 * running server holds: a Unix socket (mode 0600, so only the same OS user) on
 * which the server runs the very same admin command and returns its output.
 */
import { createHash } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bufferedIo } from './io.js';

export interface CommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export type CommandRunner = (argv: string[], io: ReturnType<typeof bufferedIo>) => Promise<number>;

/** Unix socket paths are limited to ~107 bytes: fall back to the temp dir for deep data dirs. */
export function adminSocketPath(dataDir: string): string {
  const inDataDir = join(dataDir, 'admin.sock');
  if (Buffer.byteLength(inDataDir) < 100) return inDataDir;
  return join(tmpdir(), `coregate-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`);
}

const MAX_REQUEST_BYTES = 64 * 1024;

export async function serveAdminSocket(path: string, run: CommandRunner): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_REQUEST_BYTES) req.destroy();
    });
    req.on('end', () => {
      void (async () => {
        const io = bufferedIo();
        let exitCode: number;
        try {
          const { argv } = JSON.parse(body) as { argv: unknown };
          if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) throw new Error('argv must be a list of strings');
          exitCode = await run(argv, io);
        } catch (error) {
          io.err(`coregate: ${(error as Error).message}`);
          exitCode = 1;
        }
        const result: CommandResult = { exitCode, stdout: io.stdout, stderr: io.stderr };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      })();
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

/** Sends a command to the server listening on `path`. */
export function sendAdminCommand(path: string, argv: readonly string[]): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, method: 'POST', path: '/command', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(body) as CommandResult);
        } catch (error) {
          reject(error as Error);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ argv }));
  });
}
