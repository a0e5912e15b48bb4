/** A webhook receiver that accepts connections and requests and never answers: the worst receiver there is. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export class HangingReceiver {
  /** Requests received so far (each left without an answer). */
  received = 0;
  /** Requests held open right now; the most seen at once. */
  open = 0;
  mostOpenAtOnce = 0;
  url = '';
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  async start(): Promise<this> {
    this.server = createServer((req) => {
      this.received += 1;
      this.open += 1;
      this.mostOpenAtOnce = Math.max(this.mostOpenAtOnce, this.open);
      req.resume();
      req.socket.once('close', () => (this.open -= 1));
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
