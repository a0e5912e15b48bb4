/**
 * `coregate core check` (docs/connecting-your-core.md#coregate-core-check): the admin operation
 * that checks an institution's core, and the check of a reference-protocol core that is not an
 * institution yet (`--core-url`), which needs no database.
 */
import { checkCore, type CoreCheckReport, type FormADemographics } from '../app/check-core.js';
import { checkAccountRecord } from '../adapters/core/account-record.js';
import { HttpCoreConnector } from '../adapters/core/http-core-connector.js';
import { systemClock } from '../adapters/clock/system-clock.js';
import type { Config } from '../config/config.js';
import { DEFAULT_INSTITUTION } from '../domain/institution.js';
import type { Services } from './services.js';

export type { CoreCheckReport } from '../app/check-core.js';

export interface CoreCheckOperations {
  'core.check': {
    args: { institution: string; customerKey?: string; formA?: FormADemographics };
    result: CoreCheckReport;
  };
}

type Handlers = {
  [N in keyof CoreCheckOperations]: (args: CoreCheckOperations[N]['args']) => Promise<CoreCheckOperations[N]['result']>;
};

export function coreCheckOperations(services: Pick<Services, 'coreChecker'>): Handlers {
  return {
    'core.check': ({ institution, customerKey, formA }) => services.coreChecker.check(institution, customerKey, formA),
  };
}

export interface CoreAtUrl {
  /** Base URL of a core (or a bank's adapter) speaking the reference core protocol. */
  readonly coreUrl: string;
  readonly apiKey?: string | undefined;
  readonly customerKey?: string | undefined;
}

/** `core check --core-url URL`: the reference protocol over HTTP, with the configured core timeout. */
export async function checkCoreAt(config: Config, target: CoreAtUrl): Promise<CoreCheckReport> {
  const core = new HttpCoreConnector({
    baseUrl: target.coreUrl,
    ...(target.apiKey === undefined ? {} : { apiKey: target.apiKey }),
    timeoutMs: config.coreTimeoutMs,
  });
  try {
    return await checkCore(core, {
      customerKey: target.customerKey,
      institution: DEFAULT_INSTITUTION,
      now: () => systemClock.now(),
      checkRecord: checkAccountRecord,
    });
  } finally {
    await core.close();
  }
}
