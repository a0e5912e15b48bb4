/** How a CLI command reaches the installation's admin operations. */
import { relative, isAbsolute } from 'node:path';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { directAdminClient, type AdminClient } from './admin-operations.js';
import { connectToServer } from './admin-socket.js';
import { openServices } from './services.js';

/** Which database a command uses, in words, never with a password: `PostgreSQL at host/db` or `the embedded database in ./data`. */
function databaseLocation(config: Config, cwd: string = process.cwd()): string {
  if (config.databaseUrl !== undefined) {
    try {
      const url = new URL(config.databaseUrl);
      return `PostgreSQL at ${url.hostname || 'localhost'}${url.port ? `:${url.port}` : ''}${url.pathname || '/'}`;
    } catch {
      return 'PostgreSQL (DATABASE_URL)';
    }
  }
  const path = relative(cwd, config.dataDir);
  const shown = path === '' ? '.' : path.startsWith('..') || isAbsolute(path) ? config.dataDir : `./${path}`;
  return `the embedded database in ${shown}`;
}

export interface AdminClientOptions {
  /** Told which database the command uses, before it is opened (the CLI prints it on stderr). */
  readonly onDatabase?: (description: string) => void;
}

/**
 * Through the server's admin socket when a server holds the embedded database
 * (only one process may open it), else on services this command opens itself.
 * In production a command never opens an embedded database itself: a secret
 * created there would work nowhere the production server looks.
 */
export async function openAdminClient(config: Config, options: AdminClientOptions = {}): Promise<AdminClient> {
  const where = databaseLocation(config);
  if (config.databaseUrl === undefined) {
    const server = await connectToServer(config.dataDir);
    if (server) {
      options.onDatabase?.(`${where}, through the server running on it`);
      return server;
    }
    if (config.production) {
      throw new ConfigError(
        'DATABASE_URL',
        `is required with NODE_ENV=production: without it this command would open ${where}, which no production server uses`,
      );
    }
  }
  options.onDatabase?.(where);
  const services = await openServices(config, 'command');
  return directAdminClient(services, { migratedOnOpen: services.migration });
}
