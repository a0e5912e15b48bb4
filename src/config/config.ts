/**
 * The one reader of `process.env`. Every setting is parsed and validated once at
 * start; a bad value raises a {@link ConfigError} whose message is a single line
 * naming the variable, which the entry points print before exiting.
 */
import { isAbsolute, resolve } from 'node:path';
import { parseCidr } from '../domain/ip-allow-list.js';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
  }
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  readonly port: number;
  readonly host: string;
  /** PostgreSQL connection string; `undefined` selects the embedded database. */
  readonly databaseUrl: string | undefined;
  /** Absolute path of the embedded database and generated development keys. */
  readonly dataDir: string;
  /** Base URL of the core banking system; `undefined` runs the built-in simulator. */
  readonly coreUrl: string | undefined;
  /** 32-byte key for sealing secrets at rest; `undefined` means "generate one in the data dir". */
  readonly encryptionKey: Buffer | undefined;
  readonly sessionSkewSeconds: number;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  /** Public issuer URL (`iss`); `undefined` means "http://HOST:PORT of the listening socket". */
  readonly issuer: string | undefined;
  readonly logLevel: LogLevel;
  /** How long a process may keep using a client's cached status (enabled flag, IP allow-list). */
  readonly clientCacheSeconds: number;
  readonly databasePoolMax: number;
  /**
   * Whose `X-Forwarded-For` is believed: `false` nobody; `true` the immediate peer
   * (coregate is reachable only through its proxy); or the proxies' addresses/CIDRs.
   */
  readonly trustProxy: boolean | readonly string[];
  /** Institution API key sent to the core as `X-Api-Key`. */
  readonly coreApiKey: string | undefined;
  /** Timeout of every call to the core. */
  readonly coreTimeoutMs: number;
  /** Session lifetime of the built-in simulator (when `CORE_URL` is unset). */
  readonly simulatorSessionTtlSeconds: number;
}

/** Settings and their defaults; the README's configuration table mirrors this list. */
export const DEFAULTS = Object.freeze({
  PORT: 8080,
  HOST: '127.0.0.1',
  COREGATE_DATA_DIR: './data',
  COREGATE_SESSION_SKEW_SECONDS: 30,
  COREGATE_ACCESS_TOKEN_TTL_SECONDS: 3600,
  COREGATE_REFRESH_TOKEN_TTL_SECONDS: 14 * 24 * 3600,
  COREGATE_CLIENT_CACHE_SECONDS: 30,
  COREGATE_DB_POOL_MAX: 10,
  COREGATE_CORE_TIMEOUT_MS: 5000,
  COREGATE_SIM_SESSION_TTL_SECONDS: 900,
  LOG_LEVEL: 'info' as LogLevel,
});

type Env = Readonly<Record<string, string | undefined>>;

function present(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string): boolean {
  const raw = present(env, name);
  if (raw === undefined) return false;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function trustProxy(env: Env): boolean | readonly string[] {
  const name = 'COREGATE_TRUST_PROXY';
  const raw = present(env, name);
  if (raw === undefined || /^(0|false|no|off|1|true|yes|on)$/i.test(raw)) return boolean(env, name);
  const entries = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  const cidrs: string[] = [];
  for (const entry of entries) {
    const parsed = parseCidr(entry);
    if (!parsed.ok) throw new ConfigError(name, `must be true, false or a comma-separated list of proxy addresses or CIDR blocks (${parsed.reason})`);
    cidrs.push(parsed.cidr);
  }
  return Object.freeze(cidrs);
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = present(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // The value may hold a password: never echo it.
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return raw;
}

function encryptionKey(env: Env): Buffer | undefined {
  const name = 'COREGATE_ENCRYPTION_KEY';
  const raw = present(env, name);
  if (raw === undefined) return undefined;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) throw new ConfigError(name, 'must be base64');
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(name, `must decode to 32 bytes, got ${key.length}`);
  return key;
}

/** Parses and validates the environment; throws {@link ConfigError} on the first bad value. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const logLevel = (present(env, 'LOG_LEVEL') ?? DEFAULTS.LOG_LEVEL) as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const dataDir = present(env, 'COREGATE_DATA_DIR') ?? DEFAULTS.COREGATE_DATA_DIR;
  const issuer = url(env, 'COREGATE_ISSUER', ['http:', 'https:']);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const key = encryptionKey(env);
  if (databaseUrl !== undefined && key === undefined) {
    // Every process sharing the database must seal and open with the same key; none can be generated.
    throw new ConfigError('COREGATE_ENCRYPTION_KEY', 'is required with DATABASE_URL (32 random bytes, base64: openssl rand -base64 32)');
  }
  return Object.freeze({
    port: integer(env, 'PORT', DEFAULTS.PORT, 0, 65535),
    host: present(env, 'HOST') ?? DEFAULTS.HOST,
    databaseUrl,
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(cwd, dataDir),
    coreUrl: url(env, 'CORE_URL', ['http:', 'https:']),
    encryptionKey: key,
    sessionSkewSeconds: integer(env, 'COREGATE_SESSION_SKEW_SECONDS', DEFAULTS.COREGATE_SESSION_SKEW_SECONDS, 0, 86_400),
    accessTokenTtlSeconds: integer(env, 'COREGATE_ACCESS_TOKEN_TTL_SECONDS', DEFAULTS.COREGATE_ACCESS_TOKEN_TTL_SECONDS, 60, 86_400),
    refreshTokenTtlSeconds: integer(env, 'COREGATE_REFRESH_TOKEN_TTL_SECONDS', DEFAULTS.COREGATE_REFRESH_TOKEN_TTL_SECONDS, 60, 365 * 86_400),
    issuer: issuer?.replace(/\/+$/, ''),
    logLevel,
    clientCacheSeconds: integer(env, 'COREGATE_CLIENT_CACHE_SECONDS', DEFAULTS.COREGATE_CLIENT_CACHE_SECONDS, 0, 60),
    databasePoolMax: integer(env, 'COREGATE_DB_POOL_MAX', DEFAULTS.COREGATE_DB_POOL_MAX, 1, 1000),
    trustProxy: trustProxy(env),
    coreApiKey: present(env, 'COREGATE_CORE_API_KEY'),
    coreTimeoutMs: integer(env, 'COREGATE_CORE_TIMEOUT_MS', DEFAULTS.COREGATE_CORE_TIMEOUT_MS, 50, 120_000),
    simulatorSessionTtlSeconds: integer(env, 'COREGATE_SIM_SESSION_TTL_SECONDS', DEFAULTS.COREGATE_SIM_SESSION_TTL_SECONDS, 1, 86_400),
  });
}

/** The institution API key alone, for the core simulator (which needs none of the rest). */
export function coreApiKeyFromEnv(env: Env = process.env): string | undefined {
  return present(env, 'COREGATE_CORE_API_KEY');
}
