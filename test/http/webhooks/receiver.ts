/** A webhook receiver on loopback for tests: records each request and answers from a script. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export class TestReceiver {
  readonly received: Received[] = [];
  /** Statuses to answer, in order; once used up, 204. */
  readonly script: number[] = [];
  /** Held before answering. */
  delayMs = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    return this.startOn(0);
  }

  /** Listens on a given loopback port (0: any). */
  async startOn(port: number): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const status = this.script.shift() ?? 204;
        setTimeout(() => res.writeHead(status).end(status === 204 ? undefined : 'receiver says no'), this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  /** Plain headers for `standardwebhooks`' verify. */
  static headersOf(received: Received): Record<string, string> {
    return Object.fromEntries(
      Object.entries(received.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(',') : String(value),
      ]),
    );
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
