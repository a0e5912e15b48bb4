/**
 * The one reader of `process.env`. Every setting is parsed and validated once at
 * start; a bad value raises a {@link ConfigError} whose message is a single line
 * naming the variable, which the entry points print before exiting.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
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

export interface Config extends OperationsConfig {
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
  /** Older encryption keys, for opening what they sealed after a rotation. */
  readonly previousEncryptionKeys: readonly Buffer[];
  readonly sessionSkewSeconds: number;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  /** Public issuer URL (`iss`); `undefined` means "http://HOST:PORT of the listening socket". */
  readonly issuer: string | undefined;
  readonly logLevel: LogLevel;
  /** How long a process may keep using a client's cached status (enabled flag, IP allow-list). */
  readonly clientCacheSeconds: number;
  /**
   * How long a process may reuse a customer association it read (0: never). Changes
   * made by other processes (a revocation, say) take effect within this time.
   */
  readonly associationCacheSeconds: number;
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
  // Operations: admin port and core circuit breaker.
  /** Port serving `/healthz`, `/readyz` and `/metrics` (only there); `undefined` serves them on `port`. */
  readonly adminPort: number | undefined;
  /**
   * Core calls within the breaker's 10 s window before it may open; it opens when more
   * than half of them failed (a core failing every call: after this many). 0 turns the breaker off.
   */
  readonly coreBreakerFailures: number;
  /** How long an open circuit refuses core calls before one probe call goes through. */
  readonly coreBreakerCooldownSeconds: number;
  /** Server processes (node:cluster workers) sharing the port; 1 runs no cluster. PostgreSQL only. */
  readonly workers: number;
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
  COREGATE_ASSOCIATION_CACHE_SECONDS: 5,
  COREGATE_DB_POOL_MAX: 10,
  COREGATE_CORE_TIMEOUT_MS: 5000,
  COREGATE_SIM_SESSION_TTL_SECONDS: 900,
  COREGATE_CORE_BREAKER_FAILURES: 20,
  COREGATE_CORE_BREAKER_COOLDOWN_SECONDS: 10,
  // Rate limits (README "Rate limits"); 0 turns a limit off.
  COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: 6000,
  COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: 600,
  COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: 1200,
  COREGATE_RATE_LIMIT_AUTH_FAILURES: 30,
  COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS: 300,
  COREGATE_REDIS_KEY_PREFIX: 'coregate:rl:',
  COREGATE_WORKERS: 1,
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

function base64Key(name: string, raw: string): Buffer {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) throw new ConfigError(name, 'must be base64');
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(name, `must decode to 32 bytes, got ${key.length}`);
  return key;
}

function encryptionKey(env: Env): Buffer | undefined {
  const raw = present(env, 'COREGATE_ENCRYPTION_KEY');
  return raw === undefined ? undefined : base64Key('COREGATE_ENCRYPTION_KEY', raw);
}

/** Keys that sealed data before a rotation: they still open, never seal. */
function previousEncryptionKeys(env: Env): readonly Buffer[] {
  const name = 'COREGATE_PREVIOUS_ENCRYPTION_KEYS';
  const raw = present(env, name);
  if (raw === undefined) return [];
  return Object.freeze(raw.split(',').map((part) => part.trim()).filter(Boolean).map((part) => base64Key(name, part)));
}

function workers(env: Env, databaseUrl: string | undefined): number {
  const count = integer(env, 'COREGATE_WORKERS', DEFAULTS.COREGATE_WORKERS, 1, 256);
  if (count > 1 && databaseUrl === undefined) {
    // PGlite is one process's database: several processes cannot share a data dir.
    throw new ConfigError('COREGATE_WORKERS', `must be 1 with the embedded database (got ${count}); set DATABASE_URL to run several workers`);
  }
  if (count > 1 && present(env, 'CORE_URL') === undefined) {
    // Each worker would run its own simulator, and none would know another's core sessions.
    throw new ConfigError('COREGATE_WORKERS', `must be 1 with the built-in core simulator (got ${count}); set CORE_URL (for example to bin/coregate core-sim)`);
  }
  return count;
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
  if ((databaseUrl !== undefined || isProduction(env)) && key === undefined) {
    // Every process sharing the database must seal and open with the same key; none can be generated.
    // In production a key generated into the data dir would sit next to what it protects.
    const why = databaseUrl !== undefined ? 'DATABASE_URL' : 'NODE_ENV=production';
    throw new ConfigError('COREGATE_ENCRYPTION_KEY', `is required with ${why} (32 random bytes, base64: openssl rand -base64 32)`);
  }
  return Object.freeze({
    port: integer(env, 'PORT', DEFAULTS.PORT, 0, 65535),
    host: present(env, 'HOST') ?? DEFAULTS.HOST,
    databaseUrl,
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(cwd, dataDir),
    coreUrl: url(env, 'CORE_URL', ['http:', 'https:']),
    encryptionKey: key,
    previousEncryptionKeys: previousEncryptionKeys(env),
    sessionSkewSeconds: integer(env, 'COREGATE_SESSION_SKEW_SECONDS', DEFAULTS.COREGATE_SESSION_SKEW_SECONDS, 0, 86_400),
    accessTokenTtlSeconds: integer(env, 'COREGATE_ACCESS_TOKEN_TTL_SECONDS', DEFAULTS.COREGATE_ACCESS_TOKEN_TTL_SECONDS, 60, 86_400),
    refreshTokenTtlSeconds: integer(env, 'COREGATE_REFRESH_TOKEN_TTL_SECONDS', DEFAULTS.COREGATE_REFRESH_TOKEN_TTL_SECONDS, 60, 365 * 86_400),
    issuer: issuer?.replace(/\/+$/, ''),
    logLevel,
    clientCacheSeconds: integer(env, 'COREGATE_CLIENT_CACHE_SECONDS', DEFAULTS.COREGATE_CLIENT_CACHE_SECONDS, 0, 60),
    associationCacheSeconds: integer(env, 'COREGATE_ASSOCIATION_CACHE_SECONDS', DEFAULTS.COREGATE_ASSOCIATION_CACHE_SECONDS, 0, 60),
    databasePoolMax: integer(env, 'COREGATE_DB_POOL_MAX', DEFAULTS.COREGATE_DB_POOL_MAX, 1, 1000),
    trustProxy: trustProxy(env),
    coreApiKey: present(env, 'COREGATE_CORE_API_KEY'),
    coreTimeoutMs: integer(env, 'COREGATE_CORE_TIMEOUT_MS', DEFAULTS.COREGATE_CORE_TIMEOUT_MS, 50, 120_000),
    simulatorSessionTtlSeconds: integer(env, 'COREGATE_SIM_SESSION_TTL_SECONDS', DEFAULTS.COREGATE_SIM_SESSION_TTL_SECONDS, 1, 86_400),
    adminPort: present(env, 'COREGATE_ADMIN_PORT') === undefined ? undefined : integer(env, 'COREGATE_ADMIN_PORT', 0, 0, 65535),
    coreBreakerFailures: integer(env, 'COREGATE_CORE_BREAKER_FAILURES', DEFAULTS.COREGATE_CORE_BREAKER_FAILURES, 0, 10_000),
    coreBreakerCooldownSeconds: integer(env, 'COREGATE_CORE_BREAKER_COOLDOWN_SECONDS', DEFAULTS.COREGATE_CORE_BREAKER_COOLDOWN_SECONDS, 1, 3600),
    workers: workers(env, databaseUrl),
    ...operationsConfig(env, cwd),
  });
}

/** The institution API key alone, for the core simulator (which needs none of the rest). */
export function coreApiKeyFromEnv(env: Env = process.env): string | undefined {
  return present(env, 'COREGATE_CORE_API_KEY');
}

// ---------------------------------------------------------------------------
// Operations: production mode, HTTPS and rate limits (README "Production",
// "HTTPS", "Rate limits").

export interface OperationsConfig {
  /** `NODE_ENV=production`: no demo client, an encryption key required, warnings for embedded pieces. */
  readonly production: boolean;
  /** PEM certificate (chain) and private key files for native HTTPS; both or neither. */
  readonly tlsCertFile: string | undefined;
  readonly tlsKeyFile: string | undefined;
  /** Shared rate-limit store; `undefined` counts in each process's memory. */
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly rateLimits: {
    readonly gatewayPerClientPerMinute: number;
    readonly tokenPerClientPerMinute: number;
    readonly tokenPerIpPerMinute: number;
    readonly authFailuresPerIp: number;
    readonly authFailureWindowSeconds: number;
  };
}

function isProduction(env: Env): boolean {
  return present(env, 'NODE_ENV')?.toLowerCase() === 'production';
}

function filePath(env: Env, name: string, cwd: string): string | undefined {
  const raw = present(env, name);
  if (raw === undefined) return undefined;
  return isAbsolute(raw) ? raw : resolve(cwd, raw);
}

function operationsConfig(env: Env, cwd: string): OperationsConfig {
  const tlsCertFile = filePath(env, 'COREGATE_TLS_CERT_FILE', cwd);
  const tlsKeyFile = filePath(env, 'COREGATE_TLS_KEY_FILE', cwd);
  if (tlsCertFile !== undefined && tlsKeyFile === undefined) {
    throw new ConfigError('COREGATE_TLS_KEY_FILE', 'is required with COREGATE_TLS_CERT_FILE (set both for HTTPS, or neither)');
  }
  if (tlsKeyFile !== undefined && tlsCertFile === undefined) {
    throw new ConfigError('COREGATE_TLS_CERT_FILE', 'is required with COREGATE_TLS_KEY_FILE (set both for HTTPS, or neither)');
  }
  const prefix = present(env, 'COREGATE_REDIS_KEY_PREFIX') ?? DEFAULTS.COREGATE_REDIS_KEY_PREFIX;
  if (!/^[\x21-\x7e]{1,100}$/.test(prefix)) throw new ConfigError('COREGATE_REDIS_KEY_PREFIX', 'must be 1-100 printable characters without spaces');
  const limit = (name: keyof typeof DEFAULTS & `COREGATE_RATE_LIMIT_${string}`) => integer(env, name, DEFAULTS[name], 0, 1_000_000_000);
  return {
    production: isProduction(env),
    tlsCertFile,
    tlsKeyFile,
    redisUrl: url(env, 'COREGATE_REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: prefix,
    rateLimits: Object.freeze({
      gatewayPerClientPerMinute: limit('COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE'),
      tokenPerClientPerMinute: limit('COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE'),
      tokenPerIpPerMinute: limit('COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE'),
      authFailuresPerIp: limit('COREGATE_RATE_LIMIT_AUTH_FAILURES'),
      authFailureWindowSeconds: integer(
        env,
        'COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS',
        DEFAULTS.COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS,
        1,
        86_400,
      ),
    }),
  };
}

/** The certificate and key of native HTTPS, read and checked. */
export interface TlsCredentials {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** When the (leaf) certificate expires. */
  readonly validTo: Date;
}

function readPem(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(name, `cannot be read: ${path} (${code})`);
  }
}

/**
 * Reads the files `COREGATE_TLS_CERT_FILE` and `COREGATE_TLS_KEY_FILE` name (at
 * server start, not in {@link loadConfig}: CLI commands need no key file) and checks
 * that they are a PEM certificate and the unencrypted PEM private key matching it.
 * `undefined` when HTTPS is not configured.
 */
export function readTlsCredentials(config: Pick<Config, 'tlsCertFile' | 'tlsKeyFile'>): TlsCredentials | undefined {
  if (config.tlsCertFile === undefined || config.tlsKeyFile === undefined) return undefined;
  const cert = readPem('COREGATE_TLS_CERT_FILE', config.tlsCertFile);
  const key = readPem('COREGATE_TLS_KEY_FILE', config.tlsKeyFile);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError('COREGATE_TLS_CERT_FILE', `is not a PEM certificate: ${config.tlsCertFile}`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    // Never echo the file's content: it is a secret.
    throw new ConfigError('COREGATE_TLS_KEY_FILE', `is not an unencrypted PEM private key: ${config.tlsKeyFile}`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ConfigError('COREGATE_TLS_KEY_FILE', `does not match the certificate in COREGATE_TLS_CERT_FILE (${config.tlsKeyFile})`);
  }
  return { cert, key, validTo: new Date(certificate.validTo) };
}

/** Whether `host` (the listen address) is reachable only from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
  const ipv4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(bare)?.[1];
  return ipv4 !== undefined && isIPv4(ipv4) && ipv4.startsWith('127.');
}

/**
 * How token requests may reach coregate (spec §4.1: "Only HTTPS POST is supported"):
 * - `tls`: coregate serves HTTPS itself;
 * - `proxy`: a trusted proxy terminates TLS and says so with `X-Forwarded-Proto: https`;
 * - `loopback`: development on a loopback address without a proxy — plain HTTP allowed;
 * - `refused`: plain HTTP on a reachable address — token requests are refused.
 * Only in `loopback` are token requests over plain HTTP answered.
 */
export type TokenTransport = 'tls' | 'proxy' | 'loopback' | 'refused';

export function tokenTransport(config: Pick<Config, 'tlsCertFile' | 'trustProxy' | 'host'>): TokenTransport {
  if (config.tlsCertFile !== undefined) return 'tls';
  if (config.trustProxy !== false) return 'proxy';
  return isLoopbackHost(config.host) ? 'loopback' : 'refused';
}
