/** A node:http stand-in for coregate, listening on a free loopback port for the SDK's local tests. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on a free port of 127.0.0.1; resolves with the server's base URL and how to stop it. */
export async function listenLocally(server: Server): Promise<{ baseUrl: string; close: () => void }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
