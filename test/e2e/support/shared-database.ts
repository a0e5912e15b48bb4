/**
 * Servers on one PostgreSQL database, the way an operator runs several coregate processes:
 * a fresh database (test/support/postgres.ts), a data directory and an encryption key that
 * every process on it is given, the servers a test starts on them, and one `close()` that
 * stops those servers, drops the database and removes the directory.
 */
import { randomBytes } from 'node:crypto';
import { createFreshDatabase } from '../../support/postgres.js';
import { startServer, tempDataDir, type Env, type ServerProcess } from './process.js';

export interface SharedDatabase {
  /** `DATABASE_URL`, `COREGATE_DATA_DIR` and `COREGATE_ENCRYPTION_KEY`: what every process on it needs. */
  readonly env: Env;
  /** The data directory of {@link env}, for files a test writes beside the data. */
  readonly dataDir: string;
  /** The servers started so far, in the order they were started. */
  readonly servers: readonly ServerProcess[];
  /** Starts a server with {@link env} and then `settings`. */
  startServer(settings?: Env): Promise<ServerProcess>;
  /** Starts `count` servers, one after another, each as {@link startServer} does. */
  startServers(count: number, settings?: Env): Promise<ServerProcess[]>;
  /** Stops every server it started, drops the database and removes the data directory. */
  close(): Promise<void>;
}

/**
 * A fresh database and data directory. The database is migrated by the first process that
 * opens it: a CLI command run with {@link SharedDatabase.env} before the servers, or the first server.
 */
export async function openSharedDatabase(): Promise<SharedDatabase> {
  const data = tempDataDir();
  const database = await createFreshDatabase().catch((error: unknown) => {
    data.remove();
    throw error;
  });
  const env: Env = {
    DATABASE_URL: database.url,
    COREGATE_DATA_DIR: data.dir,
    COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };
  const servers: ServerProcess[] = [];
  async function startOne(settings: Env = {}): Promise<ServerProcess> {
    // Kept at once: close() stops it even if a later start fails.
    const server = await startServer({ ...env, ...settings }, 60_000);
    servers.push(server);
    return server;
  }
  return {
    env,
    dataDir: data.dir,
    servers,
    startServer: startOne,
    async startServers(count, settings = {}) {
      const started: ServerProcess[] = [];
      for (let index = 0; index < count; index += 1) started.push(await startOne(settings));
      return started;
    },
    async close() {
      await Promise.allSettled(servers.map((server) => server.stop()));
      await database.drop();
      data.remove();
    },
  };
}
