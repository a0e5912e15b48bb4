/** Raw HTTP/1.1 over a socket, for what `inject()` and fetch cannot send (duplicate headers, malformed lines, slow bodies). */
import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether the server closed the connection. */
  readonly closed: boolean;
  readonly ms: number;
}

/** Sends `chunks` (each after `gapMs`), reads until the server closes or `waitMs` passes. */
export function rawRequest(
  port: number,
  chunks: readonly (string | Buffer)[],
  options: { gapMs?: number; waitMs?: number } = {},
): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let closed = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = () => {
      for (const timer of timers) clearTimeout(timer);
      const text = Buffer.concat(received).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body: rest.join('\r\n\r\n'),
        closed,
        ms: Date.now() - started,
      });
      socket.destroy();
    };
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('connect', () => {
      chunks.forEach((chunk, i) => {
        timers.push(setTimeout(() => socket.writable && socket.write(chunk), i * (options.gapMs ?? 0)));
      });
      timers.push(setTimeout(finish, options.waitMs ?? 5000));
    });
    socket.on('timeout', reject);
  });
}
