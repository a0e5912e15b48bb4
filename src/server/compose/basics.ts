/** What every factory of the composition (`server/services.ts` `createServices`) is built on. */
import type { Logger } from 'pino';
import type { Database } from '../../adapters/store/database.js';
import type { Config } from '../../config/config.js';
import type { Clock } from '../../ports/clock.js';

/** The configuration, the logger, the clock and the open (migrated) database. */
export interface Basics {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly database: Database;
}
