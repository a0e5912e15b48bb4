/** How a CLI command reaches the installation's admin operations. */
import type { Config } from '../config/config.js';
import { directAdminClient, type AdminClient } from './admin-operations.js';
import { connectToServer } from './admin-socket.js';
import { openServices } from './services.js';

/**
 * Through the server's admin socket when a server holds the embedded database
 * (only one process may open it), else on services this command opens itself.
 */
export async function openAdminClient(config: Config): Promise<AdminClient> {
  if (config.databaseUrl === undefined) {
    const server = await connectToServer(config.dataDir);
    if (server) return server;
  }
  const services = await openServices(config, 'command');
  return directAdminClient(services, { migratedOnOpen: services.migration });
}
