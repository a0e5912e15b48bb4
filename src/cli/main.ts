/** `bin/coregate`: the operator CLI (CONTRACT §1). */
import { ConfigError, coreApiKeyFromEnv, loadConfig } from '../config/config.js';
import { openAdminClient } from '../server/admin-client.js';
import { serve } from '../server/main.js';
import { DataDirBusy } from '../server/services.js';
import { ADMIN_COMMANDS, runAdminCommand } from './admin-commands.js';
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
  institutions <action>     banks and their cores: add, update, list, show, disable, enable
  webhooks <action>         a platform's webhook receivers: add, list, remove, rotate-secret, deliveries

Every command accepts --help; commands that print data accept --json.
Configuration comes from the environment (see README): DATABASE_URL, COREGATE_DATA_DIR, PORT, ...`;

/** Runs an admin command against the configured database, through the server if it holds the embedded one. */
async function runDatabaseCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help')) {
    // Help needs no database.
    return runAdminCommand(argv, undefined as never, io);
  }
  const admin = await openAdminClient(loadConfig());
  try {
    return await runAdminCommand(argv, admin, io);
  } finally {
    await admin.close();
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
