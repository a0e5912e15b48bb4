/** `bin/coregate`: the operator CLI (docs/behaviour.md#cli), its commands defined with commander. */
import { Command } from 'commander';
import { ConfigError, coreApiKeyFromEnv, loadConfig } from '../config/config.js';
import { PACKAGE_INFO } from '../config/package-info.js';
import { AdminOperationFailed, type AdminClient } from '../server/admin-operations.js';
import { auditCommand } from './audit-commands.js';
import { clientsCommand } from './clients-commands.js';
import { consoleCommand } from './console-commands.js';
import { coreCommand } from './core-commands.js';
import { coreSimCommand } from './core-sim-command.js';
import { fineractSimCommand } from './fineract-sim-command.js';
import { institutionsCommand } from './institutions-commands.js';
import { processIo, type CliIo } from './io.js';
import { keysCommand } from './keys-commands.js';
import { migrateCommand } from './migrate-command.js';
import { runProgram, type AdminContext } from './program.js';
import { serveCommand } from './serve-command.js';
import { sessionsCommand } from './sessions-commands.js';
import { webhooksCommand } from './webhooks-commands.js';

const FOOTER = `
Run coregate <command> --help for a command's flags and examples. Commands that
print data accept --json. Settings come from the environment: DATABASE_URL,
COREGATE_DATA_DIR, PORT, ... (coregate serve --help lists them all).`;

/** The whole command tree (the documentation test reads every command and flag from it). */
export function program(context: AdminContext): Command {
  const version = `${PACKAGE_INFO.name} ${PACKAGE_INFO.version}`;
  const root = new Command('coregate')
    .description('coregate — core banking gateway')
    .usage('<command> [options]')
    .version(version, '-v, --version', 'print the version')
    .addHelpText('after', FOOTER)
    .addCommand(serveCommand(context))
    .addCommand(coreSimCommand(context, { apiKey: coreApiKeyFromEnv() }))
    .addCommand(fineractSimCommand(context));
  for (const command of [
    clientsCommand,
    keysCommand,
    migrateCommand,
    auditCommand,
    sessionsCommand,
    institutionsCommand,
    coreCommand,
    webhooksCommand,
    consoleCommand,
  ]) {
    root.addCommand(command(context));
  }
  // `coregate version`, as before commander: kept working, not listed.
  root.command('version', { hidden: true }).action(() => context.io.out(version));
  return root;
}

/**
 * The admin client, opened when a command first needs it (after its options were checked).
 * The server's modules load only then: help and usage mistakes answer without them, in a
 * fraction of the time.
 */
function lazyAdmin(io: CliIo): { get: () => Promise<AdminClient>; close: () => Promise<void> } {
  let opened: Promise<AdminClient> | undefined;
  const open = async () => {
    const config = loadConfig();
    const { openAdminClient } = await import('../server/admin-client.js');
    return openAdminClient(config, { onDatabase: (where) => io.err(`using ${where}`) });
  };
  return {
    get: () => (opened ??= open()),
    close: async () => {
      const admin = await opened?.catch(() => undefined);
      await admin?.close();
    },
  };
}

/** A system error in one line naming the setting and the fix; `undefined` for anything else. */
function friendlySystemError(error: unknown): string | undefined {
  const { code, port, address, hostname } = error as {
    code?: string;
    port?: number;
    address?: string;
    hostname?: string;
  };
  if (code === 'EADDRINUSE')
    return `PORT ${port ?? ''} is in use: stop the other process or set PORT (or serve --port)`;
  if (code === 'EADDRNOTAVAIL')
    return `HOST ${address ?? ''} is not an address of this machine: set HOST (or serve --host) to one of its addresses, or 0.0.0.0`;
  if (code === 'EACCES' && port !== undefined) return `PORT ${port} needs privileges: set PORT to 1024 or above`;
  if (code === 'ENOTFOUND')
    return `the host name ${hostname ?? ''} does not resolve: check DATABASE_URL, CORE_URL and REDIS_URL`;
  return undefined;
}

/** Runs the command line `argv` (without the program name); returns the exit status, never exits. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const admin = lazyAdmin(io);
  const context: AdminContext = { io, exitCode: 0, admin: admin.get };
  try {
    return await runProgram(program(context), argv, context);
  } catch (error) {
    // DataDirBusy's module is loaded already whenever a data dir could have been busy (lazyAdmin, serve).
    if (error instanceof ConfigError || error instanceof (await import('../server/services.js')).DataDirBusy) {
      io.err(`coregate: ${error.message}`);
      return 2;
    }
    if (error instanceof AdminOperationFailed) {
      io.err(`coregate: ${error.message}${error.problems.map((p) => `\n  --${p.path}: ${p.message}`).join('')}`);
      return 1;
    }
    io.err(`coregate: ${friendlySystemError(error) ?? (error as Error).message}`);
    return 1;
  } finally {
    await admin.close();
  }
}
