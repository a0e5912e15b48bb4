/**
 * The HTTP plumbing the fakes share (the core simulator and the Fineract stand-in): reading
 * a request body up to a limit, sending JSON, listening and closing. Plain node:http, so a
 * fake costs the benchmarks' peer as little as it can.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The request body was over `maxBytes`; the rest of it is drained so the connection stays usable. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`request bodies are limited to ${maxBytes} bytes`);
  }
}

/** Reads the whole request body as UTF-8; rejects with {@link BodyTooLarge} past `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > maxBytes) {
      reject(new BodyTooLarge(maxBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      // Answer now; the caller's error path resumes the request, which drains the rest.
      req.off('data', onData);
      reject(new BodyTooLarge(maxBytes));
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Sends `body` as JSON; `headers` add to or replace the content type and length. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Listens on `port` and `host` and resolves with the URL clients reach it at (a wildcard address as loopback). */
export async function listen(server: Server, port: number, host: string, scheme: 'http' | 'https'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const reachable = shown === '0.0.0.0' ? '127.0.0.1' : shown === '[::]' ? '[::1]' : shown;
  return `${scheme}://${reachable}:${address.port}`;
}

/**
 * Stops listening and resolves once every connection is gone: idle ones at once, busy ones
 * when their answer is out or after `graceMs`, whichever comes first.
 */
export function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
