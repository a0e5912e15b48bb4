/** `bin/coregate`: the operator CLI (CONTRACT §1). */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, coreApiKeyFromEnv, loadConfig } from '../config/config.js';
import { createLogger } from '../adapters/logging/logger.js';
import { currentHolder, DataDirBusy } from '../adapters/store/data-dir-lock.js';
import { createServices, openDatabase } from '../composition.js';
import { serve } from '../main.js';
import { ADMIN_COMMANDS, runAdminCommand } from './admin-commands.js';
import { sendAdminCommand, type CommandResult } from './admin-socket.js';
import { CORE_SIM_HELP, runCoreSim } from './core-sim-command.js';
import { processIo, type CliIo } from './io.js';

const HELP = `coregate — core banking gateway

Usage: coregate <command> [options]

Commands:
  serve                     run the service (npm start)
  core-sim                  run the core banking simulator as its own server
  clients <action>          manage platform clients: create, list, show, disable, enable, rotate-secret
  keys <action>             manage token signing keys: rotate, list
  migrate                   apply pending database migrations
  audit list                the audit log, newest first (filters: --platform, --customer, --since, --limit)
  sessions <action>         registered customers of a platform: list, revoke

Every command accepts --help; commands that print data accept --json.
Configuration comes from the environment (see README): DATABASE_URL, COREGATE_DATA_DIR, PORT, ...`;

/** How long a command waits for a starting server's admin socket (migrations and keys come first). */
const SERVER_START_WAIT_MS = 30_000;

/**
 * Runs the command in the server that holds the data dir; `undefined` when no server
 * holds it. A server takes the data dir before its admin socket listens, and closes
 * the socket before releasing the data dir: while the holder lives without a socket,
 * wait rather than fail.
 */
async function forwardToServer(dataDir: string, argv: string[]): Promise<CommandResult | undefined> {
  const deadline = Date.now() + SERVER_START_WAIT_MS;
  for (;;) {
    const holder = currentHolder(dataDir);
    if (holder?.role !== 'server' || !holder.adminSocket) return undefined;
    try {
      return await sendAdminCommand(holder.adminSocket, argv);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ECONNREFUSED') || Date.now() >= deadline) throw error;
    }
    await sleep(100);
  }
}

/** Runs an admin command against the configured database, through the server if it holds the embedded one. */
async function runDatabaseCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help')) {
    // Help needs no database.
    return runAdminCommand(argv, undefined as never, io);
  }
  const config = loadConfig();
  if (config.databaseUrl === undefined) {
    const result = await forwardToServer(config.dataDir, argv);
    if (result) {
      if (result.stdout) io.out(result.stdout);
      if (result.stderr) io.err(result.stderr);
      return result.exitCode;
    }
  }
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const opened = await openDatabase(config, { role: 'command' });
  const services = await createServices(config, { logger, database: opened.database, onClose: opened.release }).catch(async (error: unknown) => {
    await opened.database.close();
    opened.release();
    throw error;
  });
  try {
    return await runAdminCommand(argv, { ...services, migratedOnOpen: services.migration }, io);
  } finally {
    await services.close();
  }
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command] = argv;
  try {
    if (command === undefined || command === '--help' || command === 'help' || command === '-h') {
      io.out(HELP);
      return command === undefined ? 2 : 0;
    }
    if (command === 'serve') {
      if (argv.includes('--help')) return (io.out('Usage: coregate serve\n\nRuns the service; configured by environment variables (see README).'), 0);
      return await serve(loadConfig());
    }
    if (command === 'core-sim') {
      if (argv.includes('--help')) return (io.out(CORE_SIM_HELP), 0);
      return await runCoreSim(argv.slice(1), io, { apiKey: coreApiKeyFromEnv() });
    }
    if (ADMIN_COMMANDS.has(command)) return await runDatabaseCommand(argv, io);
    io.err(`coregate: unknown command "${command}"\n\n${HELP}`);
    return 2;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DataDirBusy) {
      io.err(`coregate: ${error.message}`);
      return 2;
    }
    io.err(`coregate: ${(error as Error).message}`);
    return 1;
  }
}
