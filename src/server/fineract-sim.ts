/**
 * The Fineract stand-in as its own server (`coregate fineract-sim`, docs/cores/fineract.md#stand-in):
 * what the CLI command starts, so that the CLI does not reach into the adapter.
 */
import { startFineractStandIn, type RunningFineractStandIn } from '../fakes/fineract-stand-in/fineract-stand-in.js';
import type { FineractRelease } from '../fakes/fineract-stand-in/releases.js';
import { DEMO_CLIENTS } from '../fakes/fineract-stand-in/stand-in-data.js';

export { FINERACT_RELEASES } from '../fakes/fineract-stand-in/releases.js';

export interface FineractSimOptions {
  readonly port: number;
  readonly host: string;
  readonly tenant: string;
  readonly release: FineractRelease;
}

/** The demo clients' customer keys: the client id (customer key mode `id`) and the external id (`external-id`). */
export const FINERACT_SIM_DEMO_KEYS: readonly {
  readonly id: string;
  readonly externalId: string;
  readonly active: boolean;
}[] = DEMO_CLIENTS.map((client) => ({
  id: String(client.id),
  externalId: client.externalId ?? '',
  active: client.active,
}));

/** Starts the stand-in with its demo clients and service user; rejects when it cannot listen. */
export function startFineractSim(options: FineractSimOptions): Promise<RunningFineractStandIn> {
  return startFineractStandIn({
    port: options.port,
    host: options.host,
    tenant: options.tenant,
    release: options.release,
  });
}
