/**
 * The core banking simulator as its own server (`coregate core-sim`,
 * docs/behaviour.md#core-simulator): what the CLI command starts, so that the CLI does not
 * reach into the simulator.
 */
import { CoreSimulator } from '../fakes/core-simulator/core-simulator.js';
import type { CustomerDirectory } from '../fakes/core-simulator/customers.js';
import { loadFixtureFile } from '../fakes/core-simulator/fixtures.js';
import { startSimulatorServer } from '../fakes/core-simulator/simulator-server.js';

export { DEFAULT_SESSION_TTL_SECONDS } from '../fakes/core-simulator/core-simulator.js';
/** Thrown by {@link loadCoreSimCustomers} with every problem of the data file. */
export { FixtureError } from '../fakes/core-simulator/fixtures.js';

/** The customers of a `--data` file; throws `FixtureError` listing what is wrong with it. */
export function loadCoreSimCustomers(path: string): Promise<CustomerDirectory> {
  return loadFixtureFile(path);
}

export interface CoreSimServerOptions {
  readonly port: number;
  readonly host: string;
  readonly sessionTtlSeconds: number;
  /** The customers served; the demo data set by default. */
  readonly customers?: CustomerDirectory | undefined;
  /** Institution API key the protocol calls must carry as `X-Api-Key`. */
  readonly apiKey?: string | undefined;
}

export interface RunningCoreSim {
  readonly url: string;
  /** Which customers it serves, for the operator. */
  readonly description: string;
  close(): Promise<void>;
}

/** Starts the simulator's HTTP server; rejects when it cannot listen. */
export async function startCoreSim(options: CoreSimServerOptions): Promise<RunningCoreSim> {
  const simulator = new CoreSimulator({
    sessionTtlSeconds: options.sessionTtlSeconds,
    ...(options.customers ? { customers: options.customers } : {}),
  });
  const running = await startSimulatorServer({
    simulator,
    port: options.port,
    host: options.host,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  });
  return { url: running.url, description: simulator.customers.description, close: () => running.close() };
}
