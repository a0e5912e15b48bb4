/**
 * PostgreSQL behind a TCP relay the test can cut and restore, as a network failure
 * would: for the "database down" behaviours (503, readiness).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { PostgresDatabase } from '../../src/adapters/store/postgres-database.js';
import type { Backend } from './backends.js';
import { createFreshDatabase } from './postgres.js';

/**
 * Relays 127.0.0.1:<port> to PostgreSQL until cut; `open()` again restores it on the
 * same port. `blackhole()` is a network partition: connections stay open (new ones
 * are accepted) and nothing answers; `restore()` ends it (the partitioned connections
 * are reset, as a real partition's often are).
 */
export class PostgresRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly swallowed = new Set<Socket>();
  private blackholed = false;
  port = 0;

  async open(): Promise<void> {
    this.server = createServer((client) => {
      if (this.blackholed) {
        this.swallow(client);
        return;
      }
      const upstream = connect(5432, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** From now on nothing passes either way; sockets stay open. */
  blackhole(): void {
    this.blackholed = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      this.swallow(socket);
    }
  }

  /** Ends the partition: new connections are relayed again. */
  restore(): void {
    this.blackholed = false;
    for (const socket of this.swallowed) socket.destroy();
    this.swallowed.clear();
  }

  private swallow(socket: Socket): void {
    this.swallowed.add(socket);
    socket.removeAllListeners('data');
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => this.swallowed.delete(socket));
  }

  async cut(): Promise<void> {
    for (const socket of this.swallowed) socket.destroy();
    this.swallowed.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/** A fresh database reached through an open relay, as a harness backend; `drop` removes the database. */
export async function relayedBackend(
  relay: PostgresRelay,
  poolMax = 4,
  options: { timeoutMs?: number } = {},
): Promise<{ backend: Backend; drop: () => Promise<void> }> {
  const fresh = await createFreshDatabase();
  const url = new URL(fresh.url);
  url.host = `127.0.0.1:${relay.port}`;
  return {
    drop: fresh.drop,
    backend: {
      name: 'postgres',
      skip: false,
      async open() {
        const database = new PostgresDatabase({ connectionString: url.toString(), poolMax, ...options });
        return { database, databaseUrl: url.toString(), close: () => database.close() };
      },
    },
  };
}
