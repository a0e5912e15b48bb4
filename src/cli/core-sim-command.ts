/**
 * `coregate core-sim`: the core banking simulator as its own server
 * (docs/behaviour.md#core-simulator), speaking the reference core protocol
 * (docs/core-protocol.md).
 */
import { Command } from 'commander';
import {
  DEFAULT_SESSION_TTL_SECONDS,
  FixtureError,
  loadCoreSimCustomers,
  startCoreSim,
  type RunningCoreSim,
} from '../server/core-sim.js';
import { UsageError, type CliIo } from './io.js';
import { examples, runProgram, untilStopped, wholeNumber, type CommandContext } from './program.js';

export interface CoreSimOptions {
  /** Institution API key the simulator requires as `X-Api-Key` (the caller reads COREGATE_CORE_API_KEY). */
  readonly apiKey?: string | undefined;
  /** Stops the simulator like SIGTERM does (for running it inside another program). */
  readonly signal?: AbortSignal;
  /** Called once it listens, with its URL. */
  readonly onListening?: (url: string) => void;
}

interface CoreSimFlags {
  port: number;
  host?: string;
  data?: string;
  sessionTtl: number;
}

/** `core-sim` as a command of `coregate`; its action leaves its exit status in `context`. */
export function coreSimCommand(context: CommandContext, options: CoreSimOptions = {}): Command {
  return new Command('core-sim')
    .summary('run the core banking simulator as its own server')
    .description(
      'Runs the core banking simulator: the reference core protocol (docs/core-protocol.md) plus GET /_sim/stats, POST /_sim/sessions/expire and POST /_sim/faults. Without --data it serves the demo data set; a --data file holds {"customers": [...]}. With COREGATE_CORE_API_KEY set, protocol calls must carry it as X-Api-Key. Stops on SIGTERM or SIGINT.',
    )
    .usage('[--port 8090] [--host 127.0.0.1] [--data FILE] [--session-ttl SECONDS]')
    .option('--port <PORT>', 'listen port; 0 picks a free one', wholeNumber(0, 65_535), 8090)
    .option('--host <HOST>', 'listen address (default: 127.0.0.1)')
    .option('--data <FILE>', 'serve only the customers in this JSON file')
    .option(
      '--session-ttl <SECONDS>',
      'lifetime of a delegate reference ID, in seconds',
      wholeNumber(1, 31_536_000),
      DEFAULT_SESSION_TTL_SECONDS,
    )
    .addHelpText(
      'after',
      examples(
        'coregate core-sim --port 0',
        'COREGATE_CORE_API_KEY=sim-key coregate core-sim --data customers.json --session-ttl 60',
      ),
    )
    .action(async (flags: CoreSimFlags) => {
      context.exitCode = await serveCoreSim(flags, context.io, options);
    });
}

/** Runs `coregate core-sim` with `argv` (its flags, optionally after the word core-sim) until SIGTERM/SIGINT or `options.signal`. */
export async function runCoreSim(argv: string[], io: CliIo, options: CoreSimOptions = {}): Promise<number> {
  const args = argv[0] === 'core-sim' ? argv.slice(1) : argv;
  const context: CommandContext = { io, exitCode: 0 };
  // Under a `coregate` parent, so that its help and errors name it as `coregate core-sim`.
  const program = new Command('coregate').addCommand(coreSimCommand(context, options));
  return runProgram(program, ['core-sim', ...args], context);
}

/** 0 after a clean stop, 1 when it cannot listen, 2 for bad data; bad flags throw UsageError. */
async function serveCoreSim(flags: CoreSimFlags, io: CliIo, options: CoreSimOptions): Promise<number> {
  const { port, sessionTtl: ttl } = flags;
  const host = flags.host ?? '127.0.0.1';
  if (host === '') throw new UsageError('--host must not be empty');
  const dataFile = flags.data;

  let customers: Awaited<ReturnType<typeof loadCoreSimCustomers>> | undefined;
  if (dataFile !== undefined) {
    try {
      customers = await loadCoreSimCustomers(dataFile);
    } catch (error) {
      if (!(error instanceof FixtureError)) throw error;
      io.err(
        `coregate core-sim: ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'} in ${dataFile}:`,
      );
      for (const problem of error.problems.slice(0, 50)) io.err(`  ${problem.path}: ${problem.message}`);
      if (error.problems.length > 50) io.err(`  … and ${error.problems.length - 50} more`);
      return 2;
    }
  }

  let running: RunningCoreSim;
  try {
    running = await startCoreSim({ sessionTtlSeconds: ttl, customers, port, host, apiKey: options.apiKey });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    io.err(`coregate core-sim: cannot listen on ${host}:${port}: ${code ?? (error as Error).message}`);
    return 1;
  }

  const stopped = untilStopped(options.signal);

  io.err(
    `core simulator serving ${running.description}; sessions last ${ttl} s${options.apiKey ? '; X-Api-Key required' : ''}`,
  );
  io.err(`core simulator listening on ${running.url}`);
  options.onListening?.(running.url);
  const reason = await stopped;
  await running.close();
  io.err(`core simulator stopped (${reason})`);
  return 0;
}
