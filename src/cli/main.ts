/** `bin/coregate`: the operator CLI (CONTRACT §1). */
import { ConfigError, loadConfig } from '../config/config.js';
import { createLogger } from '../adapters/logging/logger.js';
import { currentHolder, DataDirBusy } from '../adapters/store/data-dir-lock.js';
import { createServices, openDatabase } from '../composition.js';
import { serve } from '../main.js';
import { ADMIN_COMMANDS, runAdminCommand } from './admin-commands.js';
import { sendAdminCommand } from './admin-socket.js';
import { processIo, type CliIo } from './io.js';

const HELP = `coregate — core banking gateway

Usage: coregate <command> [options]

Commands:
  serve                     run the service (npm start)
  clients <action>          manage platform clients: create, list, show, disable, enable, rotate-secret
  keys <action>             manage token signing keys: rotate, list
  migrate                   apply pending database migrations

Every command accepts --help; commands that print data accept --json.
Configuration comes from the environment (see README): DATABASE_URL, COREGATE_DATA_DIR, PORT, ...`;

/** Runs an admin command against the configured database, through the server if it holds the embedded one. */
async function runDatabaseCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help')) {
    // Help needs no database.
    return runAdminCommand(argv, undefined as never, io);
  }
  const config = loadConfig();
  if (config.databaseUrl === undefined) {
    const holder = currentHolder(config.dataDir);
    if (holder?.role === 'server' && holder.adminSocket) {
      const result = await sendAdminCommand(holder.adminSocket, argv);
      if (result.stdout) process.stdout.write(result.stdout);
      if (result.stderr) process.stderr.write(result.stderr);
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
    return await runAdminCommand(argv, services, io);
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
