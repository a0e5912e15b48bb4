/** `bin/coregate`: the operator CLI (CONTRACT §1). */
import { ConfigError, coreApiKeyFromEnv, loadConfig, type Config } from '../config/config.js';
import { PACKAGE_INFO } from '../config/package-info.js';
import { settingsHelp } from '../config/settings-table.js';
import { openAdminClient } from '../server/admin-client.js';
import type { AdminClient } from '../server/admin-operations.js';
import { serve } from '../server/main.js';
import { DataDirBusy } from '../server/services.js';
import { ADMIN_COMMANDS, runAdminCommand } from './admin-commands.js';
import { CORE_SIM_HELP, runCoreSim } from './core-sim-command.js';
import { processIo, UsageError, type CliIo } from './io.js';
import { parse, suggestFlag } from './parse-args.js';

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

Every command accepts --help; commands that print data accept --json. coregate --version prints the version.
Configuration comes from the environment (see README, .env.example, coregate serve --help): DATABASE_URL, COREGATE_DATA_DIR, PORT, ...`;

const SERVE_HELP = `Usage: coregate serve [--port PORT] [--host ADDRESS]

Runs the service (npm start). --port and --host override PORT and HOST.
Under a supervisor run \`node bin/coregate serve\` itself, not npm start (docs/operations.md).

Settings (environment variables; .env.example lists them all):
`;

/** `serve`'s own flags: --port/--host stand for PORT/HOST and are validated like them. */
function serveConfig(args: string[], io: CliIo): Config | undefined {
  const { values } = parse(args, { port: { type: 'string' }, host: { type: 'string' } }, 0);
  if (values.help) {
    io.out(SERVE_HELP + settingsHelp());
    return undefined;
  }
  if (values.json) throw new UsageError('serve prints no data: --json does not apply');
  return loadConfig({
    ...process.env,
    ...(typeof values.port === 'string' ? { PORT: values.port } : {}),
    ...(typeof values.host === 'string' ? { HOST: values.host } : {}),
  });
}

/** A system error in one line naming the setting and the fix; `undefined` for anything else. */
function friendlySystemError(error: unknown): string | undefined {
  const { code, port, address, hostname } = error as { code?: string; port?: number; address?: string; hostname?: string };
  if (code === 'EADDRINUSE') return `PORT ${port ?? ''} is in use: stop the other process or set PORT (or serve --port)`;
  if (code === 'EADDRNOTAVAIL') return `HOST ${address ?? ''} is not an address of this machine: set HOST (or serve --host) to one of its addresses, or 0.0.0.0`;
  if (code === 'EACCES' && port !== undefined) return `PORT ${port} needs privileges: set PORT to 1024 or above`;
  if (code === 'ENOTFOUND') return `the host name ${hostname ?? ''} does not resolve: check DATABASE_URL, CORE_URL and REDIS_URL`;
  return undefined;
}

const PROBE_REACHED = Symbol('the command parsed and reached its admin operation');
const probeAdmin: AdminClient = {
  call: () => Promise.reject(PROBE_REACHED),
  close: async () => {},
};

/** Runs an admin command against the configured database, through the server if it holds the embedded one. */
async function runDatabaseCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help')) {
    // Help needs no database.
    return runAdminCommand(argv, undefined as never, io);
  }
  // Usage mistakes (an unknown flag, a missing --name) are told before any database is opened:
  // a dry run whose admin client stops at the first operation.
  const dryRun = await runAdminCommand(argv, probeAdmin, io).catch((error: unknown) => {
    if (error === PROBE_REACHED) return undefined;
    throw error;
  });
  if (dryRun !== undefined) return dryRun;
  const admin = await openAdminClient(loadConfig(), { onDatabase: (where) => io.err(`using ${where}`) });
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
    if (command === '--version' || command === '-v' || command === 'version') {
      io.out(`${PACKAGE_INFO.name} ${PACKAGE_INFO.version}`);
      return 0;
    }
    if (command === 'serve') {
      const config = serveConfig(argv.slice(1), io);
      return config ? await serve(config) : 0;
    }
    if (command === 'core-sim') {
      if (argv.includes('--help')) return (io.out(CORE_SIM_HELP), 0);
      return await runCoreSim(argv.slice(1), io, { apiKey: coreApiKeyFromEnv() });
    }
    if (ADMIN_COMMANDS.has(command)) return await runDatabaseCommand(argv, io);
    const known = ['serve', 'core-sim', ...ADMIN_COMMANDS];
    const suggestion = command.startsWith('-') ? suggestFlag(command.replace(/^-+/, ''), ['help', 'version']) : suggestFlag(command, known);
    io.err(`coregate: unknown ${command.startsWith('-') ? 'option' : 'command'} "${command}"${suggestion ? ` (did you mean ${command.startsWith('-') ? '--' : ''}${suggestion}?)` : ''}; see coregate --help`);
    return 2;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DataDirBusy || error instanceof UsageError) {
      io.err(`coregate: ${error.message}`);
      return 2;
    }
    const friendly = friendlySystemError(error);
    if (friendly) {
      io.err(`coregate: ${friendly}`);
      return 1;
    }
    io.err(`coregate: ${(error as Error).message}`);
    return 1;
  }
}
