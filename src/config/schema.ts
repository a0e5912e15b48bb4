/**
 * Every setting coregate reads from the environment, in one TypeBox schema: name,
 * type, default, bounds, allowed values and a one-line description (markdown). The
 * loader (config.ts), the README's configuration table and `--help` all read it.
 *
 * Annotations beyond JSON Schema:
 * - `defaultText`: how the default reads where it needs words ("unset → embedded");
 * - `errorMessage`: the reason given when a `pattern` or union does not match;
 * - `valuesText`: what the variable accepts, where the schema's keywords read poorly.
 * A setting without a default is `Type.Optional`: unset means "not configured".
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { FINERACT_DEFAULTS } from '../domain/institution.js';
import { institutionSettingSchema } from './institution-setting-schema.js';
import { KEY_STORES, SIGNING_ALGS } from '../domain/signing-alg.js';
import './setting-formats.js';
import { TRACING_SETTINGS } from './tracing-settings.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LogLevelSchema = Type.Union(
  LOG_LEVELS.map((level) => Type.Literal(level)),
  { default: 'info', description: 'pino level' },
);
export type LogLevel = Static<typeof LogLevelSchema>;

/** Rate limits count requests; 0 turns a limit off. */
const RATE_LIMIT_MAX = 1_000_000_000;
const DAY = 86_400;

export const ConfigSchema = Type.Object({
  PORT: Type.Integer({
    minimum: 0,
    maximum: 65_535,
    default: 8080,
    description: 'listen port (`0` picks a free one; the log says which)',
  }),
  HOST: Type.String({ default: '127.0.0.1', description: 'listen address' }),
  DATABASE_URL: Type.Optional(
    Type.String({
      format: 'postgres-url',
      defaultText: 'unset → embedded',
      description: '`postgres://…` for PostgreSQL; unset: embedded PGlite in `COREGATE_DATA_DIR`',
    }),
  ),
  COREGATE_DATA_DIR: Type.String({
    default: './data',
    valuesText: 'path',
    description: 'embedded database, generated encryption key, lock file and admin socket',
  }),
  COREGATE_ENCRYPTION_KEY: Type.Optional(
    Type.String({
      format: 'base64-key',
      defaultText: 'generated in the data dir (embedded only)',
      description:
        'make one with `openssl rand -base64 32`; seals signing keys and delegate reference IDs, keys secret digests; **required with `DATABASE_URL` or `NODE_ENV=production`**',
    }),
  ),
  COREGATE_PREVIOUS_ENCRYPTION_KEYS: Type.Optional(
    Type.Array(Type.String({ format: 'base64-key' }), {
      description:
        'older encryption keys (comma-separated base64) that still open what they sealed, after a key rotation ([operations](docs/operations.md#key-rotation))',
    }),
  ),
  COREGATE_KEY_STORE: Type.Union(
    KEY_STORES.map((kind) => Type.Literal(kind)),
    {
      default: 'file',
      description:
        'where private signing keys live: `file` (in the database, sealed with the encryption key) or `pkcs11` (generated on an HSM token, never leaving it; the encryption key is then kept wrapped by the token, [operations](docs/operations.md#keys-in-an-hsm))',
    },
  ),
  COREGATE_SIGNING_ALG: Type.Union(
    SIGNING_ALGS.map((alg) => Type.Literal(alg)),
    {
      default: 'EdDSA',
      description:
        'the JWS algorithm of new signing keys (`keys rotate`); each published key keeps its own `alg` in the JWKS',
    },
  ),
  COREGATE_PKCS11_LIBRARY: Type.Optional(
    Type.String({
      valuesText: 'path',
      description: "the HSM vendor's PKCS#11 module (`.so`), with `COREGATE_KEY_STORE=pkcs11`",
    }),
  ),
  COREGATE_PKCS11_TOKEN_LABEL: Type.Optional(
    Type.String({
      pattern: '^.{1,32}$',
      errorMessage: 'must be 1 to 32 characters (a PKCS#11 token label)',
      valuesText: 'text',
      description: 'the token holding the keys, by its label (or `COREGATE_PKCS11_SLOT`)',
    }),
  ),
  COREGATE_PKCS11_SLOT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 4_294_967_295,
      valuesText: 'slot ID',
      description: 'the token holding the keys, by its slot ID (or `COREGATE_PKCS11_TOKEN_LABEL`)',
    }),
  ),
  COREGATE_PKCS11_PIN_FILE: Type.Optional(
    Type.String({
      valuesText: 'path',
      description: "file holding the token user's PIN (mode 0600, owned by the service user); the PIN is never logged",
    }),
  ),
  COREGATE_PKCS11_KEY_LABEL_PREFIX: Type.String({
    default: 'coregate-',
    pattern: '^[\\x21-\\x7e]{1,32}$',
    errorMessage: 'must be 1 to 32 printable characters without spaces',
    description:
      "`CKA_LABEL` of coregate's keys on the token: the prefix, then the key's kid (`sealing` for the wrapping key)",
  }),
  COREGATE_PKCS11_SESSIONS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 4,
    description: 'PKCS#11 sessions each process keeps open for signing concurrently',
  }),
  COREGATE_ISSUER: Type.Optional(
    Type.String({
      format: 'http-url',
      defaultText: '`http://HOST:PORT`',
      description: "public base URL, the `iss` of tokens and the discovery document's URLs",
    }),
  ),
  COREGATE_TOKEN_AUDIENCE: Type.Optional(
    Type.String({
      format: 'http-url',
      defaultText: '`{issuer}/core`',
      description:
        "the `aud` of access tokens, checked by the gateway (RFC 9068): the gateway's public URL; never a client id",
    }),
  ),
  COREGATE_ACCESS_TOKEN_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: DAY,
    default: 3600,
    description: 'access token lifetime (`expires_in`)',
  }),
  COREGATE_REFRESH_TOKEN_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 365 * DAY,
    default: 14 * DAY,
    defaultText: '`1209600` (14 days)',
    description: 'refresh token lifetime',
  }),
  COREGATE_CLIENT_CACHE_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 60,
    default: 30,
    description:
      'how long a process trusts its cached view of a client (enabled flag, IP allow-list, secret); a change announced by the database (LISTEN/NOTIFY) applies at once, this bounds it should the notifications stop',
  }),
  COREGATE_ASSOCIATION_CACHE_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 60,
    default: 5,
    description:
      'how long a process reuses a customer association it read (0 = never); a removal by another process (`DELETE /core/sessions`, `sessions revoke`) reaches it at once through the change feed, and within this time while the feed is down',
  }),
  COREGATE_TRUST_PROXY: Type.Union([Type.Boolean(), Type.Array(Type.String({ format: 'proxy-address' }))], {
    default: false,
    errorMessage: 'must be true, false or a comma-separated list of proxy addresses or CIDR blocks',
    description:
      "a TLS-terminating proxy in front: `true` (the immediate peer is the proxy) or a comma-separated list of proxy addresses/CIDRs; its `X-Forwarded-For` (caller address: IP allow-lists, rate limits) and `X-Forwarded-Proto` (HTTPS) are believed, nobody else's",
  }),
  COREGATE_DB_POOL_MAX: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 10,
    description: 'PostgreSQL connection pool size per process',
  }),
  COREGATE_WORKERS: Type.Integer({
    minimum: 1,
    maximum: 256,
    default: 1,
    description:
      'server processes sharing `PORT` (node:cluster); more than 1 needs `DATABASE_URL` and `CORE_URL` (see "Several processes")',
  }),
  // The default institution's core: each variable built from its setting's one rule, the rule
  // `institutions add|update` applies too (src/domain/institution-settings.ts).
  CORE_URL: Type.Optional(
    institutionSettingSchema('coreUrl', {
      defaultText: 'unset → built-in simulator',
      description: 'base URL of the core banking system (reference core protocol)',
    }),
  ),
  COREGATE_CORE_API_KEY: Type.Optional(
    institutionSettingSchema('coreApiKey', {
      valuesText: '1–1024 visible ASCII characters',
      description: 'institution API key sent to the core as `X-Api-Key`',
    }),
  ),
  COREGATE_CORE_KIND: institutionSettingSchema('coreKind', {
    default: 'coregate',
    description:
      "the protocol of the default institution's core: `coregate` (the reference core protocol) or `fineract` (Apache Fineract, [docs/cores/fineract.md](docs/cores/fineract.md)); `fineract` needs `CORE_URL`, `COREGATE_FINERACT_USERNAME` and `COREGATE_FINERACT_PASSWORD`",
  }),
  COREGATE_FINERACT_TENANT: institutionSettingSchema('fineractTenant', {
    default: FINERACT_DEFAULTS.tenant,
    description: 'Fineract tenant, sent as `Fineract-Platform-TenantId` (`COREGATE_CORE_KIND=fineract`)',
  }),
  COREGATE_FINERACT_USERNAME: Type.Optional(
    Type.String({
      pattern: '^[^:]{1,256}$',
      errorMessage: 'must be 1 to 256 characters without ":"',
      valuesText: 'text',
      description: "the Fineract service user's name (a read-only user, docs/cores/fineract.md)",
    }),
  ),
  COREGATE_FINERACT_PASSWORD: Type.Optional(
    Type.String({
      valuesText: 'text',
      description: "that service user's password (secret: never logged)",
    }),
  ),
  COREGATE_FINERACT_SSN_DOCUMENT_TYPE: institutionSettingSchema('fineractSsnDocumentType', {
    default: FINERACT_DEFAULTS.ssnDocumentType,
    description: 'the Fineract client identifier document type that holds the social security number',
  }),
  COREGATE_FINERACT_CUSTOMER_KEY: institutionSettingSchema('fineractCustomerKey', {
    default: FINERACT_DEFAULTS.customerKey,
    description: "a customer key is the Fineract client's id (`id`) or its `externalId` (`external-id`)",
  }),
  COREGATE_FINERACT_SSN_LOOKUP: institutionSettingSchema('fineractSsnLookup', {
    default: FINERACT_DEFAULTS.ssnLookup,
    description:
      "how Form A finds a client by SSN: `client-search` (Fineract after 1.10), `identifier-search` (every release; the SSN travels in that call's query string) or `off` (register by key only)",
  }),
  COREGATE_FINERACT_SESSION_TTL_SECONDS: institutionSettingSchema('fineractSessionTtlSeconds', {
    default: FINERACT_DEFAULTS.sessionTtlSeconds,
    description: 'lifetime of the delegate reference IDs coregate makes for Fineract sessions',
  }),
  COREGATE_CORE_TIMEOUT_MS: institutionSettingSchema('coreTimeoutMs', {
    default: 5000,
    description: 'timeout of every call to the core',
  }),
  COREGATE_CORE_BREAKER_FAILURES: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 20,
    description:
      "core calls within the breaker's 10 s window before it may open: it opens when more than half of them failed (unreachable, timeout, 5xx, off-protocol answer), and then `/core/*` answers 503 with `Retry-After` at once, without calling the core; a core failing every call opens it after this many calls; `0` turns the breaker off",
  }),
  COREGATE_CORE_BREAKER_COOLDOWN_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 10,
    description:
      'how long the open breaker refuses core calls; then one probe call goes through (success closes it, failure opens it again)',
  }),
  COREGATE_ADMIN_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65_535,
      description:
        'serve `/healthz`, `/readyz` and `/metrics` only on this port (plain HTTP, on `HOST`; `0` picks a free one); unset: on `PORT`',
    }),
  ),
  COREGATE_CONSOLE_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65_535,
      defaultText: 'unset → no console',
      description:
        'serve the operator console at `/console` on this port (HTTPS with the TLS certificate when one is configured; `0` picks a free one); unset: no console',
    }),
  ),
  COREGATE_CONSOLE_HOST: Type.String({
    default: '127.0.0.1',
    description: 'listen address of the operator console (`COREGATE_CONSOLE_PORT`)',
  }),
  COREGATE_SESSION_SKEW_SECONDS: Type.Integer({
    minimum: 0,
    maximum: DAY,
    default: 30,
    description: 'renew a core session this long before it expires',
  }),
  COREGATE_SIM_SESSION_TTL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: DAY,
    default: 900,
    description: 'session lifetime of the built-in simulator',
  }),
  LOG_LEVEL: LogLevelSchema,
  NODE_ENV: Type.Optional(
    Type.String({
      description:
        '`production`: production mode — `COREGATE_ENCRYPTION_KEY` required, never a demo client, loud warnings for the simulator and the embedded database',
    }),
  ),
  COREGATE_TLS_CERT_FILE: Type.Optional(
    Type.String({
      valuesText: 'path',
      description:
        'PEM certificate (chain) for native HTTPS; with `COREGATE_TLS_KEY_FILE`, both or neither; read and checked at start',
    }),
  ),
  COREGATE_TLS_KEY_FILE: Type.Optional(
    Type.String({ valuesText: 'path', description: "the certificate's unencrypted PEM private key" }),
  ),
  COREGATE_TLS_CLIENT_CA_FILE: Type.Optional(
    Type.String({
      valuesText: 'path',
      description:
        'PEM CA certificate(s) of client certificates: with native HTTPS, coregate asks callers for a certificate (mutual TLS, RFC 8705) and `tls_client_auth` clients need one it issued; also checks certificates a proxy passes',
    }),
  ),
  COREGATE_TLS_CLIENT_CERT_HEADER: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9-]{1,64}$',
      errorMessage: 'must be an HTTP header name (letters, digits, -)',
      description:
        "the header in which a TLS-terminating proxy passes the caller's client certificate (URL-encoded PEM, as nginx's `$ssl_client_escaped_cert`), believed only from `COREGATE_TRUST_PROXY`",
    }),
  ),
  COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: Type.Integer({
    minimum: 0,
    maximum: RATE_LIMIT_MAX,
    default: 6000,
    description: '`/core/*` requests per client (after bearer authentication); `0` = no limit',
  }),
  COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: Type.Integer({
    minimum: 0,
    maximum: RATE_LIMIT_MAX,
    default: 600,
    description: '`/oauth2/token` + `/oauth2/revoke` requests per authenticated client; `0` = no limit',
  }),
  COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: Type.Integer({
    minimum: 0,
    maximum: RATE_LIMIT_MAX,
    default: 1200,
    description:
      '`/oauth2/token` + `/oauth2/revoke` requests per source address (IPv6: per /64), before authentication; `0` = no limit',
  }),
  COREGATE_RATE_LIMIT_AUTH_FAILURES: Type.Integer({
    minimum: 0,
    maximum: RATE_LIMIT_MAX,
    default: 30,
    description:
      'failed client authentications per source address per window; once spent, that address is refused before any secret is checked; `0` = no limit',
  }),
  COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: DAY,
    default: 300,
    description: 'the window of `COREGATE_RATE_LIMIT_AUTH_FAILURES`',
  }),
  COREGATE_RATE_LIMIT_BEARER_FAILURES_PER_MINUTE: Type.Integer({
    minimum: 0,
    maximum: RATE_LIMIT_MAX,
    default: 120,
    description:
      '`/core/*` requests refused for a missing or invalid bearer token, per source address (IPv6: per /64) per minute; once spent, that address gets 429 before any token is verified; `0` = no limit',
  }),
  COREGATE_REDIS_URL: Type.Optional(
    Type.String({
      format: 'redis-url',
      defaultText: 'unset → in memory',
      description:
        '`redis://` or `rediss://` URL of the rate-limit store shared by every process; unset: each process counts in its own memory',
    }),
  ),
  COREGATE_REDIS_KEY_PREFIX: Type.String({
    pattern: '^[\\x21-\\x7e]{1,100}$',
    default: 'coregate:rl:',
    valuesText: '1–100 printable characters, no spaces',
    errorMessage: 'must be 1-100 printable characters without spaces',
    description: "prefix of coregate's Redis keys (several installations can share one Redis)",
  }),
  COREGATE_INSTITUTION_CACHE_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 30,
    default: 10,
    description:
      'how long a process trusts its cached list of institutions (cores, enabled flags); a change announced by the database (LISTEN/NOTIFY) applies at once, this bounds it should the notifications stop',
  }),
  COREGATE_WEBHOOK_RETRY_SCHEDULE_SECONDS: Type.Array(Type.Integer({ minimum: 1, maximum: 7 * DAY }), {
    minItems: 0,
    maxItems: 30,
    default: [5, 30, 120, 600, 3600, 21600, 86400],
    errorMessage: 'must be a comma-separated list of whole numbers of seconds, 1 to 604800 each, at most 30',
    description:
      'waits before each retry of a failed webhook delivery (comma-separated seconds); after the last retry fails the delivery is `failed`',
  }),
  COREGATE_WEBHOOK_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description:
      'in production mode, allow webhook URLs that resolve to loopback, private or link-local addresses (on-premises receivers); `https://` is still required',
  }),
  COREGATE_WEBHOOK_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description:
      'webhook events and deliveries that were delivered or failed are deleted this many days after they were recorded (in the background, a few hundred rows at a time); pending ones are kept until they settle. Expired refresh tokens are deleted in the same background task',
  }),
  COREGATE_DB_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 3000,
    description:
      'the longest a request waits for the database, all of its waits together (connecting, a pooled connection, its statements, its audit row); past it the request is answered 503 with `Retry-After`. Each statement is also bounded by it on the server (`statement_timeout`) and in the client (`query_timeout`)',
  }),
  COREGATE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    maximum: 3_600_000,
    default: 10_000,
    description:
      "PostgreSQL's `idle_in_transaction_session_timeout` for coregate's connections: a transaction left idle this long is ended by the server (0 = never)",
  }),
  COREGATE_DB_KEEPALIVE_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 3600,
    default: 10,
    description:
      'TCP keep-alive on PostgreSQL connections, idle seconds before the first probe (0 = off): a connection across a dead network is found and dropped',
  }),
  COREGATE_REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 600_000,
    default: 30_000,
    description:
      'a request, headers and body, must arrive within this, else 408 and the connection is closed; the headers alone within 10 s (or this, if shorter)',
  }),
  COREGATE_CORE_RETRIES: Type.Integer({
    minimum: 0,
    maximum: 5,
    default: 2,
    description:
      'retries of a core call that is safe to repeat (reading accounts) after an unreachable core or a 5xx, with jittered backoff, within `COREGATE_CORE_TIMEOUT_MS`; starting a session is never retried; 0 = off',
  }),
  ...TRACING_SETTINGS,
});

/** The settings after coercion and defaults: every variable without a default may be `undefined`. */
export type Settings = Static<typeof ConfigSchema>;
export type SettingName = keyof Settings;

type Defaulted = { readonly [K in SettingName as undefined extends Settings[K] ? never : K]: Settings[K] };

/** Each setting's schema, in the schema's (and the README's) order. */
export function settingSchemas(): ReadonlyArray<readonly [SettingName, TSchema]> {
  return Object.entries(ConfigSchema.properties) as Array<[SettingName, TSchema]>;
}

/** The defaults, read from the schema. */
export const DEFAULTS: Defaulted = Object.freeze(
  Object.fromEntries(
    settingSchemas().flatMap(([name, schema]) => ('default' in schema ? [[name, schema['default']]] : [])),
  ),
) as Defaulted;
