/**
 * `coregate fineract-sim`: the Fineract stand-in as its own server (docs/cores/fineract.md#stand-in),
 * to try coregate's Fineract connector without a Fineract.
 */
import { Command } from 'commander';
import { FINERACT_RELEASES, FINERACT_SIM_DEMO_KEYS, startFineractSim } from '../server/fineract-sim.js';
import { UsageError, type CliIo } from './io.js';
import { examples, runProgram, untilStopped, wholeNumber, type CommandContext } from './program.js';

export interface FineractSimOptions {
  /** Stops the stand-in like SIGTERM does (for running it inside another program). */
  readonly signal?: AbortSignal;
  /** Called once it listens, with its context root URL. */
  readonly onListening?: (url: string) => void;
}

interface FineractSimFlags {
  port: number;
  host?: string;
  tenant: string;
  release: string;
}

/** `fineract-sim` as a command of `coregate`; its action leaves its exit status in `context`. */
export function fineractSimCommand(context: CommandContext, options: FineractSimOptions = {}): Command {
  return new Command('fineract-sim')
    .summary('run a stand-in for Apache Fineract, for the Fineract connector')
    .description(
      "Runs a stand-in for Apache Fineract's back-office REST API: the calls coregate's Fineract connector makes, in Fineract's wire shape, with demo clients and a read-only service user (docs/cores/fineract.md). POST /_sim/faults takes {latencyMs, errorRate, errorStatus, malformed}; GET /_sim/stats counts the calls received. Stops on SIGTERM or SIGINT.",
    )
    .usage('[--port 8091] [--host 127.0.0.1] [--tenant default] [--release 1.9|1.10|1.11]')
    .option('--port <PORT>', 'listen port; 0 picks a free one', wholeNumber(0, 65_535), 8091)
    .option('--host <HOST>', 'listen address (default: 127.0.0.1)')
    .option('--tenant <TENANT>', 'the tenant it serves (Fineract-Platform-TenantId)', 'default')
    .option(
      '--release <RELEASE>',
      `the Fineract release it behaves as: ${FINERACT_RELEASES.join(', ')} (docs/cores/fineract.md#releases)`,
      '1.11',
    )
    .addHelpText('after', examples('coregate fineract-sim', 'coregate fineract-sim --port 0 --tenant bank1'))
    .action(async (flags: FineractSimFlags) => {
      context.exitCode = await serveFineractSim(flags, context.io, options);
    });
}

/** Runs `coregate fineract-sim` with `argv` until SIGTERM/SIGINT or `options.signal`. */
export async function runFineractSim(argv: string[], io: CliIo, options: FineractSimOptions = {}): Promise<number> {
  const args = argv[0] === 'fineract-sim' ? argv.slice(1) : argv;
  const context: CommandContext = { io, exitCode: 0 };
  const program = new Command('coregate').addCommand(fineractSimCommand(context, options));
  return runProgram(program, ['fineract-sim', ...args], context);
}

async function serveFineractSim(flags: FineractSimFlags, io: CliIo, options: FineractSimOptions): Promise<number> {
  const host = flags.host ?? '127.0.0.1';
  if (host === '') throw new UsageError('--host must not be empty');
  if (!/^[\x21-\x7e]{1,100}$/.test(flags.tenant)) throw new UsageError('--tenant must be 1 to 100 visible characters');
  const release = FINERACT_RELEASES.find((known) => known === flags.release);
  if (!release) throw new UsageError(`--release must be one of ${FINERACT_RELEASES.join(', ')}`);
  let running: Awaited<ReturnType<typeof startFineractSim>>;
  try {
    running = await startFineractSim({ port: flags.port, host, tenant: flags.tenant, release });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    io.err(`coregate fineract-sim: cannot listen on ${host}:${flags.port}: ${code ?? (error as Error).message}`);
    return 1;
  }

  const stopped = untilStopped(options.signal);

  const { username, password } = running.credentials;
  io.err(`Fineract stand-in: release ${running.release}; tenant ${running.tenant}; service user ${username}`);
  io.err(`  credentials file for coregate: printf '%s' '${username}:${password}' > fineract.credentials`);
  io.err(
    `  demo customer keys (mode id / external-id): ${FINERACT_SIM_DEMO_KEYS.map((key) => `${key.id}/${key.externalId}${key.active ? '' : ' (closed)'}`).join(', ')}`,
  );
  io.err('  demo demographics: docs/cores/fineract.md#walk-through');
  io.err(`Fineract stand-in listening on ${running.url}`);
  options.onListening?.(running.url);
  const reason = await stopped;
  await running.close();
  io.err(`Fineract stand-in stopped (${reason})`);
  return 0;
}
