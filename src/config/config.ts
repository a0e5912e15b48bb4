/**
 * The one reader of `process.env`. Loading is read → coerce → validate (against
 * the schema in schema.ts, which holds every variable's type, default, bounds and
 * description) → the cross-variable rules → a frozen {@link Config}. A bad value
 * raises a {@link ConfigError} whose message is a single line naming the variable,
 * which the entry points print before exiting.
 */
import { TypeGuard, type TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { isAbsolute, resolve } from 'node:path';
import { parseCidr } from '../domain/ip-allow-list.js';
import type { CoreCredentials, FineractSettings } from '../domain/institution.js';
import { ConfigError } from './config-error.js';
import { ConfigSchema, settingSchemas, type SettingName, type Settings } from './schema.js';
import { ATTRIBUTE_KEY, HEADER_NAME, parseKeyValueList, SETTING_FORMATS } from './setting-formats.js';
import { unknownSettings, type UnknownSetting } from './unknown-settings.js';

export { ConfigError } from './config-error.js';
export { DEFAULTS, type LogLevel } from './schema.js';
export { unknownSettingWarning, type UnknownSetting } from './unknown-settings.js';

/**
 * Settings the rest of coregate reads exactly as validated: the {@link Config} key of each,
 * and its variable in the schema (schema.ts), which holds its type, default and description.
 * A new setting of this kind is its schema entry and one line here; one that must be decoded
 * (a path made absolute, a key decoded, a group) goes in {@link DecodedConfig} and `toConfig`.
 */
const PLAIN_SETTINGS = {
  port: 'PORT',
  host: 'HOST',
  databaseUrl: 'DATABASE_URL',
  coreUrl: 'CORE_URL',
  sessionSkewSeconds: 'COREGATE_SESSION_SKEW_SECONDS',
  accessTokenTtlSeconds: 'COREGATE_ACCESS_TOKEN_TTL_SECONDS',
  refreshTokenTtlSeconds: 'COREGATE_REFRESH_TOKEN_TTL_SECONDS',
  logLevel: 'LOG_LEVEL',
  clientCacheSeconds: 'COREGATE_CLIENT_CACHE_SECONDS',
  associationCacheSeconds: 'COREGATE_ASSOCIATION_CACHE_SECONDS',
  institutionCacheSeconds: 'COREGATE_INSTITUTION_CACHE_SECONDS',
  databasePoolMax: 'COREGATE_DB_POOL_MAX',
  coreApiKey: 'COREGATE_CORE_API_KEY',
  coreTimeoutMs: 'COREGATE_CORE_TIMEOUT_MS',
  simulatorSessionTtlSeconds: 'COREGATE_SIM_SESSION_TTL_SECONDS',
  adminPort: 'COREGATE_ADMIN_PORT',
  consolePort: 'COREGATE_CONSOLE_PORT',
  consoleHost: 'COREGATE_CONSOLE_HOST',
  coreBreakerFailures: 'COREGATE_CORE_BREAKER_FAILURES',
  coreBreakerCooldownSeconds: 'COREGATE_CORE_BREAKER_COOLDOWN_SECONDS',
  workers: 'COREGATE_WORKERS',
  redisUrl: 'COREGATE_REDIS_URL',
  redisKeyPrefix: 'COREGATE_REDIS_KEY_PREFIX',
  webhookAllowPrivate: 'COREGATE_WEBHOOK_ALLOW_PRIVATE',
  webhookRetentionDays: 'COREGATE_WEBHOOK_RETENTION_DAYS',
  requestTimeoutMs: 'COREGATE_REQUEST_TIMEOUT_MS',
  coreRetries: 'COREGATE_CORE_RETRIES',
  coreKind: 'COREGATE_CORE_KIND',
  keyStore: 'COREGATE_KEY_STORE',
  signingAlg: 'COREGATE_SIGNING_ALG',
} as const satisfies Record<string, SettingName>;

type PlainConfig = { readonly [K in keyof typeof PLAIN_SETTINGS]: Settings[(typeof PLAIN_SETTINGS)[K]] };

/** The settings coregate reads decoded from what was validated, or gathered in a group. */
interface DecodedConfig {
  /** Absolute path of the embedded database and generated development keys. */
  readonly dataDir: string;
  /** 32-byte key for sealing secrets at rest; `undefined` means "generate one in the data dir". */
  readonly encryptionKey: Buffer | undefined;
  /** Older encryption keys, for opening what they sealed after a rotation. */
  readonly previousEncryptionKeys: readonly Buffer[];
  /** Public issuer URL (`iss`) without a trailing slash; `undefined` means "http://HOST:PORT of the listening socket". */
  readonly issuer: string | undefined;
  /** The `aud` of access tokens (RFC 9068); `undefined` means "`{issuer}/core`". */
  readonly tokenAudience: string | undefined;
  /**
   * Whose `X-Forwarded-For` is believed: `false` nobody; `true` the immediate peer
   * (coregate is reachable only through its proxy); or the proxies' addresses/CIDRs.
   */
  readonly trustProxy: boolean | readonly string[];
  /** The default institution's Fineract settings (COREGATE_FINERACT_…), used when `coreKind` is `fineract`. */
  readonly fineract: FineractSettings;
  /** The Fineract service user; set (both parts) whenever `coreKind` is `fineract`. Never logged. */
  readonly fineractCredentials: CoreCredentials | undefined;
  /** `NODE_ENV=production`: no demo client, an encryption key required, warnings for embedded pieces. */
  readonly production: boolean;
  /** Absolute paths of the PEM certificate (chain) and private key for native HTTPS; both or neither. */
  readonly tlsCertFile: string | undefined;
  readonly tlsKeyFile: string | undefined;
  /** CA of client certificates (mutual TLS, RFC 8705); `undefined`: native HTTPS asks for none. */
  readonly tlsClientCaFile: string | undefined;
  /** Header (lower case) in which a trusted proxy passes the client certificate; `undefined`: none. */
  readonly tlsClientCertHeader: string | undefined;
  /** Waits before each webhook retry, in seconds; past the last the delivery fails (docs/behaviour.md#webhook-delivery). */
  readonly webhookRetryScheduleSeconds: readonly number[];
  /** Rate limits; 0 turns a limit off. */
  readonly rateLimits: {
    readonly gatewayPerClientPerMinute: number;
    readonly tokenPerClientPerMinute: number;
    readonly tokenPerIpPerMinute: number;
    readonly authFailuresPerIp: number;
    readonly authFailureWindowSeconds: number;
    readonly bearerFailuresPerIpPerMinute: number;
  };
  /** Database deadlines and connection settings (PostgreSQL; the embedded database takes `timeoutMs`). */
  readonly database: {
    /** Longest wait for a connection, a pooled connection or one statement; then 503. */
    readonly timeoutMs: number;
    /** `idle_in_transaction_session_timeout`; 0 = off. */
    readonly idleInTransactionTimeoutMs: number;
    /** TCP keep-alive initial delay in seconds; 0 = off. */
    readonly keepAliveSeconds: number;
  };
  /** OpenTelemetry tracing (the standard `OTEL_*` variables); `undefined`: off, nothing of the SDK is loaded. */
  readonly tracing: TracingConfig | undefined;
  /** The PKCS#11 token holding the keys; set exactly when `keyStore` is `pkcs11`. */
  readonly pkcs11: Pkcs11Config | undefined;
}

/** Where the PKCS#11 token is and how to log in (docs/operations.md#keys-in-an-hsm). */
export interface Pkcs11Config {
  /** Absolute path of the vendor's PKCS#11 module. */
  readonly library: string;
  /** The token by its label, or else by its slot ID (one of the two is set). */
  readonly tokenLabel: string | undefined;
  readonly slot: number | undefined;
  /** Absolute path of the file holding the user PIN: read at start, never logged. */
  readonly pinFile: string;
  /** `CKA_LABEL` prefix of coregate's objects on the token. */
  readonly keyLabelPrefix: string;
  /** Sessions kept open for concurrent signing. */
  readonly sessions: number;
}

/** Where and how traces are exported (OTLP over HTTP), read from OpenTelemetry's standard variables. */
export interface TracingConfig {
  /** The full URL spans are posted to. */
  readonly tracesUrl: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  /** Headers for the collector (an API key, say): secrets, never logged. */
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: Settings['OTEL_TRACES_SAMPLER'];
  /** The share of traces the `*traceidratio` samplers keep. */
  readonly samplerRatio: number;
}

/** The validated, frozen configuration: the plain settings by their key, and the decoded ones. */
export type Config = PlainConfig & DecodedConfig;

type Env = Readonly<Record<string, string | undefined>>;

/** Parses and validates the environment; throws {@link ConfigError} on the first bad value. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const settings = validate(coerce(env));
  const config = toConfig(settings, cwd);
  requireEncryptionKeyWhereNoneCanBeGenerated(config);
  requireSharedPiecesForWorkers(config);
  requireTlsFilesInPairs(config);
  requireFineractSettings(config, settings);
  return Object.freeze(config);
}

/**
 * The `COREGATE_` variables of the environment that are not settings (a misspelt name is
 * otherwise ignored in silence), each with the nearest known name; `serve` warns of them.
 */
export function unknownSettingsInEnvironment(env: Env = process.env): readonly UnknownSetting[] {
  return unknownSettings(env);
}

/** The institution API key alone, for the core simulator (which needs none of the rest). */
export function coreApiKeyFromEnv(env: Env = process.env): string | undefined {
  return present(env['COREGATE_CORE_API_KEY']);
}

// ---------------------------------------------------------------------------
// Read and coerce: environment strings become the schema's types where they can;
// what cannot be coerced stays a string for validation to name.

function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  '1': true,
  true: true,
  yes: true,
  on: true,
  '0': false,
  false: false,
  no: false,
  off: false,
};

function coerceValue(schema: TSchema, raw: string): unknown {
  if (TypeGuard.IsInteger(schema)) return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (TypeGuard.IsBoolean(schema)) return BOOLEAN_WORDS[raw.toLowerCase()] ?? raw;
  if (TypeGuard.IsArray(schema))
    return raw
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => coerceValue(schema.items, part));
  if (TypeGuard.IsUnion(schema)) {
    // The first variant the value fits; else the last one's coercion, for its errors.
    const candidates = schema.anyOf.map((variant) => [variant, coerceValue(variant, raw)] as const);
    return (candidates.find(([variant, value]) => Value.Check(variant, value)) ?? candidates.at(-1))?.[1] ?? raw;
  }
  return raw;
}

/** The schema's variables from `env`: blank counts as unset, then defaults apply. */
function coerce(env: Env): unknown {
  const settings: Record<string, unknown> = {};
  for (const [name, schema] of settingSchemas()) {
    const raw = present(env[name]);
    if (raw !== undefined) settings[name] = coerceValue(schema, raw);
  }
  return Value.Default(ConfigSchema, settings);
}

// ---------------------------------------------------------------------------
// Validate: the first error becomes a one-line ConfigError naming the variable.

function validate(settings: unknown): Settings {
  const error = Value.Errors(ConfigSchema, settings).First();
  if (error === undefined) return settings as Settings;
  const variable = error.path.split('/')[1] ?? '(environment)';
  throw new ConfigError(variable, reason(error));
}

function reason(error: ValueError): string {
  const schema = error.schema as TSchema & {
    minimum?: number;
    maximum?: number;
    format?: string;
    errorMessage?: string;
  };
  switch (error.type) {
    case ValueErrorType.Integer:
      return `must be a whole number, got "${String(error.value)}"`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
      return `must be between ${schema.minimum} and ${schema.maximum}, got ${String(error.value)}`;
    case ValueErrorType.Boolean:
      return `must be true or false, got "${String(error.value)}"`;
    case ValueErrorType.StringFormat:
      return SETTING_FORMATS[schema.format ?? '']?.problem(String(error.value)) ?? error.message;
    case ValueErrorType.Union: {
      const variants = (schema as TSchema & { anyOf: TSchema[] }).anyOf;
      if (variants.every((variant) => TypeGuard.IsLiteral(variant)))
        return `must be one of ${variants.map((variant) => String(variant['const'])).join(', ')}`;
      // Say why the closest variant refused it (a bad entry in a list, say).
      const nested = error.errors
        .map((errors) => errors.First())
        .find((inner) => inner?.type === ValueErrorType.StringFormat);
      const why = nested === undefined ? '' : ` (${reason(nested)})`;
      return `${schema.errorMessage ?? error.message}${why}`;
    }
    default:
      return schema.errorMessage ?? error.message;
  }
}

// ---------------------------------------------------------------------------
// Decode: the validated settings as the rest of coregate uses them.

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

function proxies(trust: boolean | readonly string[]): boolean | readonly string[] {
  if (typeof trust === 'boolean') return trust;
  // Validation checked every entry; this normalises them (an address becomes its /32 or /128).
  return Object.freeze(trust.map((entry) => (parseCidr(entry) as { cidr: string }).cidr));
}

function toConfig(settings: Settings, cwd: string): Config {
  const plain = Object.fromEntries(
    Object.entries(PLAIN_SETTINGS).map(([key, name]) => [key, settings[name]]),
  ) as PlainConfig;
  return {
    ...plain,
    dataDir: absolute(settings.COREGATE_DATA_DIR, cwd),
    encryptionKey:
      settings.COREGATE_ENCRYPTION_KEY === undefined
        ? undefined
        : Buffer.from(settings.COREGATE_ENCRYPTION_KEY, 'base64'),
    previousEncryptionKeys: Object.freeze(
      (settings.COREGATE_PREVIOUS_ENCRYPTION_KEYS ?? []).map((key) => Buffer.from(key, 'base64')),
    ),
    issuer: settings.COREGATE_ISSUER?.replace(/\/+$/, ''),
    tokenAudience: settings.COREGATE_TOKEN_AUDIENCE?.replace(/\/+$/, ''),
    trustProxy: proxies(settings.COREGATE_TRUST_PROXY),
    fineract: Object.freeze({
      tenant: settings.COREGATE_FINERACT_TENANT,
      ssnDocumentType: settings.COREGATE_FINERACT_SSN_DOCUMENT_TYPE,
      customerKey: settings.COREGATE_FINERACT_CUSTOMER_KEY,
      ssnLookup: settings.COREGATE_FINERACT_SSN_LOOKUP,
      sessionTtlSeconds: settings.COREGATE_FINERACT_SESSION_TTL_SECONDS,
    }),
    fineractCredentials:
      settings.COREGATE_FINERACT_USERNAME === undefined || settings.COREGATE_FINERACT_PASSWORD === undefined
        ? undefined
        : Object.freeze({
            username: settings.COREGATE_FINERACT_USERNAME,
            password: settings.COREGATE_FINERACT_PASSWORD,
          }),
    production: settings.NODE_ENV?.toLowerCase() === 'production',
    tlsCertFile:
      settings.COREGATE_TLS_CERT_FILE === undefined ? undefined : absolute(settings.COREGATE_TLS_CERT_FILE, cwd),
    tlsKeyFile:
      settings.COREGATE_TLS_KEY_FILE === undefined ? undefined : absolute(settings.COREGATE_TLS_KEY_FILE, cwd),
    tlsClientCaFile:
      settings.COREGATE_TLS_CLIENT_CA_FILE === undefined
        ? undefined
        : absolute(settings.COREGATE_TLS_CLIENT_CA_FILE, cwd),
    tlsClientCertHeader: settings.COREGATE_TLS_CLIENT_CERT_HEADER?.toLowerCase(),
    webhookRetryScheduleSeconds: Object.freeze([...settings.COREGATE_WEBHOOK_RETRY_SCHEDULE_SECONDS]),
    rateLimits: Object.freeze({
      gatewayPerClientPerMinute: settings.COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE,
      tokenPerClientPerMinute: settings.COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE,
      tokenPerIpPerMinute: settings.COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE,
      authFailuresPerIp: settings.COREGATE_RATE_LIMIT_AUTH_FAILURES,
      authFailureWindowSeconds: settings.COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS,
      bearerFailuresPerIpPerMinute: settings.COREGATE_RATE_LIMIT_BEARER_FAILURES_PER_MINUTE,
    }),
    database: Object.freeze({
      timeoutMs: settings.COREGATE_DB_TIMEOUT_MS,
      idleInTransactionTimeoutMs: settings.COREGATE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      keepAliveSeconds: settings.COREGATE_DB_KEEPALIVE_SECONDS,
    }),
    tracing: tracingConfig(settings),
    pkcs11: pkcs11Config(settings, cwd),
  };
}

function pkcs11Config(settings: Settings, cwd: string): Pkcs11Config | undefined {
  if (settings.COREGATE_KEY_STORE !== 'pkcs11') return undefined;
  const needed = 'with COREGATE_KEY_STORE=pkcs11 (docs/operations.md#keys-in-an-hsm)';
  if (settings.COREGATE_PKCS11_LIBRARY === undefined)
    throw new ConfigError('COREGATE_PKCS11_LIBRARY', `is required ${needed}: the path of the PKCS#11 module`);
  if (settings.COREGATE_PKCS11_PIN_FILE === undefined)
    throw new ConfigError('COREGATE_PKCS11_PIN_FILE', `is required ${needed}: a file holding the user PIN`);
  if (settings.COREGATE_PKCS11_TOKEN_LABEL === undefined && settings.COREGATE_PKCS11_SLOT === undefined)
    throw new ConfigError('COREGATE_PKCS11_TOKEN_LABEL', `or COREGATE_PKCS11_SLOT is required ${needed}`);
  if (settings.COREGATE_PKCS11_TOKEN_LABEL !== undefined && settings.COREGATE_PKCS11_SLOT !== undefined)
    throw new ConfigError(
      'COREGATE_PKCS11_SLOT',
      'names the token a second time: set it or COREGATE_PKCS11_TOKEN_LABEL',
    );
  return Object.freeze({
    library: absolute(settings.COREGATE_PKCS11_LIBRARY, cwd),
    tokenLabel: settings.COREGATE_PKCS11_TOKEN_LABEL,
    slot: settings.COREGATE_PKCS11_SLOT,
    pinFile: absolute(settings.COREGATE_PKCS11_PIN_FILE, cwd),
    keyLabelPrefix: settings.COREGATE_PKCS11_KEY_LABEL_PREFIX,
    sessions: settings.COREGATE_PKCS11_SESSIONS,
  });
}

/**
 * The OTLP traces URL as the OpenTelemetry specification builds it: the signal's own
 * endpoint as written, else `v1/traces` below the general one.
 */
function tracingConfig(settings: Settings): TracingConfig | undefined {
  const general = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesUrl =
    settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (general === undefined ? undefined : `${general.replace(/\/+$/, '')}/v1/traces`);
  if (tracesUrl === undefined) return undefined;
  const pairs = (value: string | undefined, key: RegExp) => {
    const parsed = value === undefined ? undefined : parseKeyValueList(value, key);
    return Object.freeze(parsed?.ok ? parsed.pairs : {});
  };
  return Object.freeze({
    tracesUrl,
    protocol: settings.OTEL_EXPORTER_OTLP_PROTOCOL,
    headers: pairs(settings.OTEL_EXPORTER_OTLP_HEADERS, HEADER_NAME),
    serviceName: settings.OTEL_SERVICE_NAME,
    resourceAttributes: pairs(settings.OTEL_RESOURCE_ATTRIBUTES, ATTRIBUTE_KEY),
    sampler: settings.OTEL_TRACES_SAMPLER,
    samplerRatio: settings.OTEL_TRACES_SAMPLER_ARG === undefined ? 1 : Number(settings.OTEL_TRACES_SAMPLER_ARG),
  });
}

// ---------------------------------------------------------------------------
// Rules between variables, after each one is valid on its own.

/**
 * Every process sharing a database must seal and open with the same key, so none can
 * be generated; in production a key generated into the data dir would sit next to
 * what it protects. With a PKCS#11 token the key is generated once and kept wrapped
 * by the token (docs/operations.md#keys-in-an-hsm): every process unwraps the same one.
 */
function requireEncryptionKeyWhereNoneCanBeGenerated(config: Config): void {
  if (config.pkcs11 !== undefined) return;
  if (config.encryptionKey !== undefined || (config.databaseUrl === undefined && !config.production)) return;
  const why = config.databaseUrl !== undefined ? 'DATABASE_URL' : 'NODE_ENV=production';
  throw new ConfigError(
    'COREGATE_ENCRYPTION_KEY',
    `is required with ${why} (32 random bytes, base64: openssl rand -base64 32)`,
  );
}

/** Several workers only where every piece can be shared between processes. */
function requireSharedPiecesForWorkers(config: Config): void {
  const count = config.workers;
  if (count > 1 && config.databaseUrl === undefined) {
    // PGlite is one process's database: several processes cannot share a data dir.
    throw new ConfigError(
      'COREGATE_WORKERS',
      `must be 1 with the embedded database (got ${count}); set DATABASE_URL to run several workers`,
    );
  }
  if (count > 1 && config.coreUrl === undefined) {
    // Each worker would run its own simulator, and none would know another's core sessions.
    throw new ConfigError(
      'COREGATE_WORKERS',
      `must be 1 with the built-in core simulator (got ${count}); set CORE_URL (for example to bin/coregate core-sim)`,
    );
  }
}

/** Native HTTPS needs the certificate and its key: both or neither. */
function requireTlsFilesInPairs(config: Config): void {
  if (config.tlsCertFile !== undefined && config.tlsKeyFile === undefined) {
    throw new ConfigError(
      'COREGATE_TLS_KEY_FILE',
      'is required with COREGATE_TLS_CERT_FILE (set both for HTTPS, or neither)',
    );
  }
  if (config.tlsKeyFile !== undefined && config.tlsCertFile === undefined) {
    throw new ConfigError(
      'COREGATE_TLS_CERT_FILE',
      'is required with COREGATE_TLS_KEY_FILE (set both for HTTPS, or neither)',
    );
  }
  if (
    config.tlsClientCaFile !== undefined &&
    config.tlsCertFile === undefined &&
    config.tlsClientCertHeader === undefined
  ) {
    throw new ConfigError(
      'COREGATE_TLS_CLIENT_CA_FILE',
      'needs native HTTPS (COREGATE_TLS_CERT_FILE) or a proxy passing certificates (COREGATE_TLS_CLIENT_CERT_HEADER)',
    );
  }
  if (config.tlsClientCertHeader !== undefined && config.trustProxy === false) {
    throw new ConfigError(
      'COREGATE_TLS_CLIENT_CERT_HEADER',
      'is believed only from trusted proxies: set COREGATE_TRUST_PROXY too',
    );
  }
}

/** The default institution on Apache Fineract needs its context root and its service user. */
function requireFineractSettings(config: Config, settings: Settings): void {
  if (config.coreKind !== 'fineract') return;
  const needed = 'with COREGATE_CORE_KIND=fineract (docs/cores/fineract.md)';
  if (config.coreUrl === undefined)
    throw new ConfigError(
      'CORE_URL',
      `is required ${needed}: Fineract's context root, e.g. https://fineract.bank.example/fineract-provider`,
    );
  if (settings.COREGATE_FINERACT_USERNAME === undefined)
    throw new ConfigError('COREGATE_FINERACT_USERNAME', `is required ${needed}: the read-only service user`);
  if (settings.COREGATE_FINERACT_PASSWORD === undefined)
    throw new ConfigError('COREGATE_FINERACT_PASSWORD', `is required ${needed}: the service user's password`);
}
