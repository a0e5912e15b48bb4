/**
 * What `serve` says about its own set-up at start (loud warnings when
 * embedded pieces run in production mode): how token requests must arrive
 * (docs/behaviour.md#https), and which development conveniences are in use.
 */
import type { Logger } from 'pino';
import type { TlsCredentials } from '../adapters/tls/read-tls-credentials.js';
import { unknownSettingWarning, type Config, type UnknownSetting } from '../config/config.js';
import { tokenTransport } from '../config/token-transport.js';

const CERT_EXPIRY_WARNING_DAYS = 30;

export interface StartupFacts {
  readonly tls: TlsCredentials | undefined;
  /** Whether the built-in core simulator answers for the core (CORE_URL unset). */
  readonly simulator: boolean;
  readonly now: Date;
  /** `COREGATE_` variables of the environment that are not settings (misspellings, most likely). */
  readonly unknownSettings?: readonly UnknownSetting[];
  /** What to say about an issuer taken from the listening address (`issuer-url.ts`), if anything. */
  readonly issuerWarning?: string | undefined;
}

/** Logs one line per finding; warnings for what a production installation must not have. */
export function logStartupChecks(config: Config, logger: Logger, facts: StartupFacts): void {
  for (const setting of facts.unknownSettings ?? []) {
    logger.warn({ variable: setting.name, nearest: setting.nearest }, unknownSettingWarning(setting));
  }
  if (facts.issuerWarning !== undefined) logger.warn({ host: config.host }, facts.issuerWarning);
  switch (tokenTransport(config)) {
    case 'tls':
      logger.info({ validTo: facts.tls?.validTo.toISOString() }, 'serving HTTPS (COREGATE_TLS_CERT_FILE)');
      break;
    case 'proxy':
      logger.info(
        'behind a trusted proxy (COREGATE_TRUST_PROXY): token requests need X-Forwarded-Proto: https from it',
      );
      break;
    case 'loopback':
      logger.warn(
        { host: config.host },
        'plain HTTP on a loopback address: token requests over HTTP are allowed for development only; in production set COREGATE_TLS_CERT_FILE/COREGATE_TLS_KEY_FILE or COREGATE_TRUST_PROXY',
      );
      break;
    case 'refused':
      logger.warn(
        { host: config.host },
        'plain HTTP on a non-loopback address without TLS or a trusted proxy: token requests are refused (400 invalid_request "HTTPS is required"); set COREGATE_TLS_CERT_FILE/COREGATE_TLS_KEY_FILE or COREGATE_TRUST_PROXY',
      );
      break;
  }
  if (facts.tls) {
    const daysLeft = (facts.tls.validTo.getTime() - facts.now.getTime()) / 86_400_000;
    if (daysLeft < 0)
      logger.error(
        { validTo: facts.tls.validTo.toISOString() },
        'the TLS certificate has expired: clients will refuse the connection',
      );
    else if (daysLeft < CERT_EXPIRY_WARNING_DAYS)
      logger.warn(
        { validTo: facts.tls.validTo.toISOString() },
        `the TLS certificate expires in ${Math.floor(daysLeft)} days`,
      );
  }

  if (config.production) {
    if (facts.simulator) {
      logger.warn(
        'NODE_ENV=production but CORE_URL is not set: the BUILT-IN CORE SIMULATOR with fictitious demo data answers for the core',
      );
    }
    if (config.databaseUrl === undefined) {
      logger.warn(
        { dataDir: config.dataDir },
        'NODE_ENV=production on the EMBEDDED DATABASE (PGlite): one process, no replication, backups are yours; set DATABASE_URL to a PostgreSQL server',
      );
    }
  } else if (facts.simulator) {
    logger.info('CORE_URL is not set: using the built-in core simulator with its demo data');
  }
  if (config.redisUrl === undefined && config.workers > 1) {
    logger.warn(
      { workers: config.workers },
      'rate limits are counted per worker process without COREGATE_REDIS_URL: each worker allows the full budget',
    );
  }
}
