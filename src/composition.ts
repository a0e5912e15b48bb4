/**
 * Wiring shared by the server, the CLI and the tests: configuration → adapters →
 * use cases. Nothing here listens on a port.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ClientAuthenticator } from './app/authenticate-client.js';
import { ClientDirectory } from './app/client-directory.js';
import { ClientRegistry } from './app/client-registry.js';
import { TokenIssuer } from './app/issue-token.js';
import { TokenRevoker } from './app/revoke-token.js';
import { CoreSessionKeeper } from './app/core-session-keeper.js';
import { AccountReader } from './app/list-accounts.js';
import { SessionRegistrar } from './app/register-session.js';
import { HttpCoreConnector } from './adapters/core/http-core-connector.js';
import { InProcessCoreConnector } from './adapters/core/in-process-core-connector.js';
import { CoreSimulator } from './adapters/core/simulator/core-simulator.js';
import { SqlAssociationStore } from './adapters/store/sql-association-store.js';
import { systemClock } from './adapters/clock/system-clock.js';
import { AesGcmSealer } from './adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey, type EncryptionKey } from './adapters/crypto/encryption-keys.js';
import { HmacCredentialHasher } from './adapters/crypto/hmac-credential-hasher.js';
import { JoseKeyring } from './adapters/crypto/jose-keyring.js';
import { loadOrCreateKeyFile } from './adapters/crypto/key-file.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireDataDirLock, DataDirBusy, type DataDirLock, type LockHolder } from './adapters/store/data-dir-lock.js';
import type { Database } from './adapters/store/database.js';
import { migrate, type MigrationReport } from './adapters/store/migrate.js';
import { PgliteDatabase } from './adapters/store/pglite-database.js';
import { PostgresDatabase } from './adapters/store/postgres-database.js';
import { SqlClientStore } from './adapters/store/sql-client-store.js';
import { SqlRefreshTokenStore } from './adapters/store/sql-refresh-token-store.js';
import { SqlSigningKeyStore } from './adapters/store/sql-signing-key-store.js';
import type { Config } from './config/config.js';
import type { Clock } from './ports/clock.js';
import type { CoreConnector } from './ports/core-connector.js';

/** The issuer URL, fixed once the listening address is known. */
export class IssuerUrl {
  private value: string | undefined;
  constructor(configured: string | undefined) {
    this.value = configured;
  }
  get = (): string => {
    if (this.value === undefined) throw new Error('issuer URL used before the server listens');
    return this.value;
  };
  /** Sets the URL unless configuration fixed it. */
  resolve(url: string): void {
    this.value ??= url.replace(/\/+$/, '');
  }
}

export interface Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly database: Database;
  readonly migration: MigrationReport;
  readonly issuer: IssuerUrl;
  readonly clientRegistry: ClientRegistry;
  readonly authenticator: ClientAuthenticator;
  readonly tokenIssuer: TokenIssuer;
  readonly revoker: TokenRevoker;
  readonly keyring: JoseKeyring;
  readonly clientDirectory: ClientDirectory;
  readonly core: CoreConnector;
  /** The built-in simulator, when `CORE_URL` is unset (and no connector was injected). */
  readonly simulator: CoreSimulator | undefined;
  readonly sessionKeeper: CoreSessionKeeper;
  readonly registrar: SessionRegistrar;
  readonly accountReader: AccountReader;
  close(): Promise<void>;
}

export interface OpenedDatabase {
  readonly database: Database;
  /** Releases what opening took (the data-dir lock); call after `database.close()`. */
  readonly release: () => void;
}

/** How long a starting server waits for a CLI command that holds the data directory. */
const COMMAND_HOLD_WAIT_MS = 15_000;

/**
 * Takes the data directory. A CLI command holds it only for seconds, so a server
 * waits for it instead of failing; another server holding it is an error at once.
 */
async function acquireWaitingForCommands(dataDir: string, holder: Omit<LockHolder, 'pid'>): Promise<DataDirLock> {
  const deadline = Date.now() + COMMAND_HOLD_WAIT_MS;
  for (;;) {
    try {
      return acquireDataDirLock(dataDir, holder);
    } catch (error) {
      const waitable = error instanceof DataDirBusy && error.holder.role === 'command' && holder.role === 'server';
      if (!waitable || Date.now() >= deadline) throw error;
    }
    await sleep(100);
  }
}

/** Opens PostgreSQL, or the embedded database after taking its data directory. */
export async function openDatabase(config: Config, holder: Omit<LockHolder, 'pid'>): Promise<OpenedDatabase> {
  if (config.databaseUrl !== undefined) {
    return {
      database: new PostgresDatabase({ connectionString: config.databaseUrl, poolMax: config.databasePoolMax }),
      release: () => {},
    };
  }
  const lock = await acquireWaitingForCommands(config.dataDir, holder);
  try {
    return { database: await PgliteDatabase.open(join(config.dataDir, 'pg')), release: () => lock.release() };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The configured key first (it seals), then the data dir's generated key (still opens old values). */
export function encryptionKeys(config: Config): [EncryptionKey, ...EncryptionKey[]] {
  const keys: EncryptionKey[] = [];
  if (config.encryptionKey) keys.push(encryptionKey(config.encryptionKey));
  if (config.databaseUrl === undefined) {
    const generated = encryptionKey(loadOrCreateKeyFile(config.dataDir));
    if (!keys.some((key) => key.id === generated.id)) keys.push(generated);
  }
  if (keys.length === 0) throw new Error('no encryption key: set COREGATE_ENCRYPTION_KEY');
  return keys as [EncryptionKey, ...EncryptionKey[]];
}

export interface ServiceOptions {
  readonly logger: Logger;
  readonly database: Database;
  readonly clock?: Clock;
  /** Extra cleanup after the database closes (for example releasing the data-dir lock). */
  readonly onClose?: () => void;
  /** A core connector to use instead of the configured one (tests). */
  readonly core?: CoreConnector;
}

/** The configured core: the HTTP connector for `CORE_URL`, else the simulator in process. */
export function createCoreConnector(config: Config, clock: Clock): { core: CoreConnector; simulator: CoreSimulator | undefined } {
  if (config.coreUrl !== undefined) {
    return {
      core: new HttpCoreConnector({ baseUrl: config.coreUrl, apiKey: config.coreApiKey, timeoutMs: config.coreTimeoutMs }),
      simulator: undefined,
    };
  }
  const simulator = new CoreSimulator({ clock, sessionTtlSeconds: config.simulatorSessionTtlSeconds });
  return { core: new InProcessCoreConnector(simulator, { timeoutMs: config.coreTimeoutMs }), simulator };
}

/** Builds every use case on an open database, after applying pending migrations. */
export async function createServices(config: Config, options: ServiceOptions): Promise<Services> {
  const { logger, database } = options;
  const clock = options.clock ?? systemClock;
  const migration = await migrate(database);
  if (migration.applied.length > 0) {
    logger.info({ applied: migration.applied.map((m) => m.version), current: migration.current }, 'database migrated');
  }
  const keys = encryptionKeys(config);
  const sealer = new AesGcmSealer(keys);
  const hasher = new HmacCredentialHasher(keys);
  const clients = new SqlClientStore(database);
  const refreshTokens = new SqlRefreshTokenStore(database);
  const issuer = new IssuerUrl(config.issuer);
  const keyring = new JoseKeyring(new SqlSigningKeyStore(database), sealer, clock, {
    issuer: issuer.get,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
  });
  const tokenOptions = {
    issuer: issuer.get,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
  };
  const { core, simulator } = options.core ? { core: options.core, simulator: undefined } : createCoreConnector(config, clock);
  const associations = new SqlAssociationStore(database, sealer);
  const sessionKeeper = new CoreSessionKeeper(associations, core, clock, {
    skewSeconds: config.sessionSkewSeconds,
    // A renewal lease outlives one core call, so a crashed renewer blocks others only briefly.
    leaseSeconds: Math.ceil(config.coreTimeoutMs / 1000) + 5,
  });
  let closed = false;
  return {
    config,
    logger,
    clock,
    database,
    migration,
    issuer,
    clientRegistry: new ClientRegistry(clients, hasher, clock),
    authenticator: new ClientAuthenticator(clients, hasher),
    tokenIssuer: new TokenIssuer(refreshTokens, hasher, keyring, clock, tokenOptions),
    revoker: new TokenRevoker(refreshTokens, hasher, clock),
    keyring,
    clientDirectory: new ClientDirectory(clients, clock, config.clientCacheSeconds),
    core,
    simulator,
    sessionKeeper,
    registrar: new SessionRegistrar(associations, core, clock),
    accountReader: new AccountReader(associations, core, sessionKeeper),
    async close() {
      if (closed) return;
      closed = true;
      await core.close();
      await database.close();
      options.onClose?.();
    },
  };
}
