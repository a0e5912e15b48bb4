/**
 * `coregate core-sim`: the core banking simulator as its own server (CONTRACT §5),
 * speaking the reference core protocol (docs/core-protocol.md).
 */
import { parseArgs } from 'node:util';
import { DEFAULT_SESSION_TTL_SECONDS, FixtureError, loadCoreSimCustomers, startCoreSim, type RunningCoreSim } from '../server/core-sim.js';
import type { CliIo } from './io.js';

export const CORE_SIM_HELP = `Usage: coregate core-sim [--port 8090] [--host 127.0.0.1] [--data FILE] [--session-ttl SECONDS]

Runs the core banking simulator: the reference core protocol (docs/core-protocol.md)
plus GET /_sim/stats, POST /_sim/sessions/expire and POST /_sim/faults.

Options:
  --port PORT              listen port (default 8090; 0 picks a free one)
  --host HOST              listen address (default 127.0.0.1)
  --data FILE              serve exactly the customers of this JSON file
                           ({"customers": [...]}); default: the demo data set
  --session-ttl SECONDS    lifetime of a delegate reference ID (default ${DEFAULT_SESSION_TTL_SECONDS})
  --help                   this text

With COREGATE_CORE_API_KEY set, protocol calls must carry it as X-Api-Key.
Stops on SIGTERM or SIGINT.`;

export interface CoreSimOptions {
  /** Institution API key the simulator requires as `X-Api-Key` (the caller reads COREGATE_CORE_API_KEY). */
  readonly apiKey?: string;
  /** Stops the simulator like SIGTERM does (for running it inside another program). */
  readonly signal?: AbortSignal;
  /** Called once it listens, with its URL. */
  readonly onListening?: (url: string) => void;
}

function wholeNumber(value: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new Error(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  return Number(value);
}

/** Runs until SIGTERM/SIGINT (or `options.signal`); 0 after a clean stop, 2 for bad usage or data. */
export async function runCoreSim(argv: string[], io: CliIo, options: CoreSimOptions = {}): Promise<number> {
  const args = argv[0] === 'core-sim' ? argv.slice(1) : argv;
  let port: number;
  let host: string;
  let ttl: number;
  let dataFile: string | undefined;
  try {
    const { values } = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        'session-ttl': { type: 'string' },
        help: { type: 'boolean' },
      },
      allowPositionals: false,
      strict: true,
    });
    if (values.help) {
      io.out(CORE_SIM_HELP);
      return 0;
    }
    port = wholeNumber(values.port ?? '8090', '--port', 0, 65_535);
    host = values.host ?? '127.0.0.1';
    if (host === '') throw new Error('--host must not be empty');
    ttl = wholeNumber(values['session-ttl'] ?? String(DEFAULT_SESSION_TTL_SECONDS), '--session-ttl', 1, 31_536_000);
    dataFile = values.data;
  } catch (error) {
    io.err(`coregate core-sim: ${(error as Error).message}\n\n${CORE_SIM_HELP}`);
    return 2;
  }

  let customers: Awaited<ReturnType<typeof loadCoreSimCustomers>> | undefined;
  if (dataFile !== undefined) {
    try {
      customers = await loadCoreSimCustomers(dataFile);
    } catch (error) {
      if (!(error instanceof FixtureError)) throw error;
      io.err(`coregate core-sim: ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'} in ${dataFile}:`);
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

  let onSignal!: (signal: NodeJS.Signals) => void;
  const stopped = new Promise<string>((resolve) => {
    onSignal = resolve;
    options.signal?.addEventListener('abort', () => resolve('abort'), { once: true });
    if (options.signal?.aborted) resolve('abort');
  });
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);

  io.err(`core simulator serving ${running.description}; sessions last ${ttl} s${options.apiKey ? '; X-Api-Key required' : ''}`);
  io.err(`core simulator listening on ${running.url}`);
  options.onListening?.(running.url);
  const reason = await stopped;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  await running.close();
  io.err(`core simulator stopped (${reason})`);
  return 0;
}
