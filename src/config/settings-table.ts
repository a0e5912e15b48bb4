/**
 * The settings as people read them, generated from the schema: the README's
 * configuration table (between its markers; a test fails when it drifts) and the
 * plain-text list a `serve --help` can print.
 */
import { TypeGuard, type TSchema } from '@sinclair/typebox';
import { settingSchemas, type SettingName } from './schema.js';
import { SETTING_FORMATS } from './setting-formats.js';

export interface SettingDescription {
  readonly name: string;
  /** The default, or what unset means (markdown). */
  readonly default: string;
  /** What the variable accepts: a range, the allowed values or a format (markdown). */
  readonly values: string;
  /** One line (markdown). */
  readonly description: string;
}

type Annotated = TSchema & {
  defaultText?: string;
  valuesText?: string;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
};

function shownDefault(schema: Annotated): string {
  if (schema.defaultText !== undefined) return schema.defaultText;
  return 'default' in schema ? `\`${String(schema['default'])}\`` : 'unset';
}

function accepted(schema: Annotated): string {
  if (schema.valuesText !== undefined) return schema.valuesText;
  if (TypeGuard.IsInteger(schema)) return `${schema.minimum}–${schema.maximum}`;
  if (TypeGuard.IsBoolean(schema)) return '`true`, `false`';
  if (TypeGuard.IsLiteral(schema)) return `\`${String(schema.const)}\``;
  if (TypeGuard.IsArray(schema)) return `comma-separated list (each: ${accepted(schema.items)})`;
  if (TypeGuard.IsUnion(schema)) {
    const literals = schema.anyOf.every((variant) => TypeGuard.IsLiteral(variant));
    return schema.anyOf.map((variant) => accepted(variant)).join(literals ? ', ' : ' or ');
  }
  if (schema.format !== undefined) return SETTING_FORMATS[schema.format]?.label ?? schema.format;
  if (schema.pattern !== undefined) return `\`${schema.pattern}\``;
  return 'text';
}

/** Every setting in schema order: name, default, accepted values and description. */
export function describeSettings(): readonly SettingDescription[] {
  return settingSchemas().map(([name, schema]) => {
    const annotated = schema as Annotated;
    return {
      name,
      default: shownDefault(annotated),
      values: accepted(annotated),
      description: annotated.description ?? '',
    };
  });
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The README's configuration table (markdown, ends with a newline). */
export function configTable(): string {
  const rows = describeSettings().map(
    (setting) =>
      `| \`${setting.name}\` | ${cell(setting.default)} | ${cell(setting.values)} | ${cell(setting.description)} |`,
  );
  return ['| variable | default | values | meaning |', '|---|---|---|---|', ...rows].join('\n') + '\n';
}

/** Markdown as plain text for a terminal: no backticks, bold or link targets. */
function plain(markdown: string): string {
  return markdown.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\*\*|`/g, '');
}

/** The settings as `serve --help` can print them: one block per variable. */
export function settingsHelp(): string {
  return describeSettings()
    .map(
      (setting) =>
        `  ${setting.name} (default: ${plain(setting.default)}; ${plain(setting.values)})\n      ${plain(setting.description)}`,
    )
    .join('\n');
}

/** The concerns the operations guide groups the settings by, in its order. */
const CONCERNS = [
  'listening',
  'TLS and proxies',
  'storage and secrets',
  'tokens and caches',
  'core',
  'rate limits',
  'webhooks',
  'mode and logs',
  'tracing (OpenTelemetry)',
] as const;
type Concern = (typeof CONCERNS)[number];

/** Each setting's concern: a setting added to the schema does not compile until it has one. */
const SETTING_CONCERNS: Readonly<Record<SettingName, Concern>> = {
  PORT: 'listening',
  HOST: 'listening',
  COREGATE_ADMIN_PORT: 'listening',
  COREGATE_CONSOLE_PORT: 'listening',
  COREGATE_CONSOLE_HOST: 'listening',
  COREGATE_WORKERS: 'listening',
  COREGATE_REQUEST_TIMEOUT_MS: 'listening',
  COREGATE_TLS_CERT_FILE: 'TLS and proxies',
  COREGATE_TLS_KEY_FILE: 'TLS and proxies',
  COREGATE_TRUST_PROXY: 'TLS and proxies',
  COREGATE_ISSUER: 'TLS and proxies',
  COREGATE_TLS_CLIENT_CA_FILE: 'TLS and proxies',
  COREGATE_TLS_CLIENT_CERT_HEADER: 'TLS and proxies',
  DATABASE_URL: 'storage and secrets',
  COREGATE_DB_POOL_MAX: 'storage and secrets',
  COREGATE_DB_TIMEOUT_MS: 'storage and secrets',
  COREGATE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: 'storage and secrets',
  COREGATE_DB_KEEPALIVE_SECONDS: 'storage and secrets',
  COREGATE_DATA_DIR: 'storage and secrets',
  COREGATE_ENCRYPTION_KEY: 'storage and secrets',
  COREGATE_PREVIOUS_ENCRYPTION_KEYS: 'storage and secrets',
  COREGATE_KEY_STORE: 'storage and secrets',
  COREGATE_SIGNING_ALG: 'storage and secrets',
  COREGATE_PKCS11_LIBRARY: 'storage and secrets',
  COREGATE_PKCS11_TOKEN_LABEL: 'storage and secrets',
  COREGATE_PKCS11_SLOT: 'storage and secrets',
  COREGATE_PKCS11_PIN_FILE: 'storage and secrets',
  COREGATE_PKCS11_KEY_LABEL_PREFIX: 'storage and secrets',
  COREGATE_PKCS11_SESSIONS: 'storage and secrets',
  COREGATE_ACCESS_TOKEN_TTL_SECONDS: 'tokens and caches',
  COREGATE_REFRESH_TOKEN_TTL_SECONDS: 'tokens and caches',
  COREGATE_TOKEN_AUDIENCE: 'tokens and caches',
  COREGATE_CLIENT_CACHE_SECONDS: 'tokens and caches',
  COREGATE_ASSOCIATION_CACHE_SECONDS: 'tokens and caches',
  COREGATE_INSTITUTION_CACHE_SECONDS: 'tokens and caches',
  CORE_URL: 'core',
  COREGATE_CORE_API_KEY: 'core',
  COREGATE_CORE_KIND: 'core',
  COREGATE_FINERACT_TENANT: 'core',
  COREGATE_FINERACT_USERNAME: 'core',
  COREGATE_FINERACT_PASSWORD: 'core',
  COREGATE_FINERACT_SSN_DOCUMENT_TYPE: 'core',
  COREGATE_FINERACT_CUSTOMER_KEY: 'core',
  COREGATE_FINERACT_SSN_LOOKUP: 'core',
  COREGATE_FINERACT_SESSION_TTL_SECONDS: 'core',
  COREGATE_CORE_TIMEOUT_MS: 'core',
  COREGATE_CORE_RETRIES: 'core',
  COREGATE_SESSION_SKEW_SECONDS: 'core',
  COREGATE_CORE_BREAKER_FAILURES: 'core',
  COREGATE_CORE_BREAKER_COOLDOWN_SECONDS: 'core',
  COREGATE_SIM_SESSION_TTL_SECONDS: 'core',
  COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: 'rate limits',
  COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: 'rate limits',
  COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: 'rate limits',
  COREGATE_RATE_LIMIT_AUTH_FAILURES: 'rate limits',
  COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS: 'rate limits',
  COREGATE_RATE_LIMIT_BEARER_FAILURES_PER_MINUTE: 'rate limits',
  COREGATE_REDIS_URL: 'rate limits',
  COREGATE_REDIS_KEY_PREFIX: 'rate limits',
  COREGATE_WEBHOOK_RETRY_SCHEDULE_SECONDS: 'webhooks',
  COREGATE_WEBHOOK_ALLOW_PRIVATE: 'webhooks',
  COREGATE_WEBHOOK_RETENTION_DAYS: 'webhooks',
  NODE_ENV: 'mode and logs',
  LOG_LEVEL: 'mode and logs',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'tracing (OpenTelemetry)',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'tracing (OpenTelemetry)',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'tracing (OpenTelemetry)',
  OTEL_EXPORTER_OTLP_HEADERS: 'tracing (OpenTelemetry)',
  OTEL_SERVICE_NAME: 'tracing (OpenTelemetry)',
  OTEL_RESOURCE_ATTRIBUTES: 'tracing (OpenTelemetry)',
  OTEL_TRACES_SAMPLER: 'tracing (OpenTelemetry)',
  OTEL_TRACES_SAMPLER_ARG: 'tracing (OpenTelemetry)',
};

/** The operations guide's table of settings by concern (markdown, ends with a newline); the README's table has the details. */
function settingsByConcernTable(): string {
  const names = settingSchemas().map(([name]) => name);
  const rows = CONCERNS.map((concern) => {
    const members = names.filter((name) => SETTING_CONCERNS[name] === concern);
    return `| ${concern} | ${members.map((name) => `\`${name}\``).join(', ')} |`;
  });
  return ['| concern | settings |', '|---|---|', ...rows].join('\n') + '\n';
}

/** A generated block of a markdown page, between two marker comments. */
export interface GeneratedBlock {
  readonly start: string;
  readonly end: string;
  readonly generate: () => string;
}

export const CONFIG_TABLE_START =
  '<!-- config-table:start (generated from src/config/schema.ts: npm run config-table) -->';
export const CONFIG_TABLE_END = '<!-- config-table:end -->';
export const README_CONFIG_TABLE: GeneratedBlock = {
  start: CONFIG_TABLE_START,
  end: CONFIG_TABLE_END,
  generate: configTable,
};
export const OPERATIONS_SETTINGS_TABLE: GeneratedBlock = {
  start:
    '<!-- settings-by-concern:start (generated from src/config/schema.ts and settings-table.ts: npm run config-table) -->',
  end: '<!-- settings-by-concern:end -->',
  generate: settingsByConcernTable,
};

/** `page` with `block` generated afresh between its markers; throws when the markers are missing. */
export function withGeneratedBlock(page: string, block: GeneratedBlock): string {
  const start = page.indexOf(block.start);
  const end = page.indexOf(block.end);
  if (start < 0 || end < start) throw new Error(`no ${block.start} … ${block.end} markers`);
  return `${page.slice(0, start + block.start.length)}\n${block.generate()}${page.slice(end)}`;
}

/** `readme` with the generated table between its markers; throws when the markers are missing. */
export function withConfigTable(readme: string): string {
  return withGeneratedBlock(readme, README_CONFIG_TABLE);
}

/**
 * `.env.example`: every setting, commented out at its default (or unset), with its meaning.
 * Generated like the README table (`npm run config-table` writes both; a test fails when it drifts).
 */
export function envExample(): string {
  const blocks = describeSettings().map((setting) => {
    const shown = plain(setting.default);
    const value =
      setting.default.startsWith('`') && setting.default.endsWith('`') && !setting.default.slice(1, -1).includes('`')
        ? shown
        : '';
    return [
      `# ${plain(setting.description)}`,
      `# values: ${plain(setting.values)}; default: ${shown}`,
      `# ${setting.name}=${value}`,
    ].join('\n');
  });
  return [
    '# coregate settings (generated from src/config/schema.ts by `npm run config-table`).',
    "# Copy to .env (or your unit file's EnvironmentFile) and uncomment what you change.",
    '',
    blocks.join('\n\n'),
    '',
  ].join('\n');
}
