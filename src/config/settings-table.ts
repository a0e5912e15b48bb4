/**
 * The settings as people read them, generated from the schema: the README's
 * configuration table (between its markers; a test fails when it drifts) and the
 * plain-text list a `serve --help` can print.
 */
import { TypeGuard, type TSchema } from '@sinclair/typebox';
import { settingSchemas } from './schema.js';
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

type Annotated = TSchema & { defaultText?: string; valuesText?: string; format?: string; pattern?: string; minimum?: number; maximum?: number };

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
    return { name, default: shownDefault(annotated), values: accepted(annotated), description: annotated.description ?? '' };
  });
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The README's configuration table (markdown, ends with a newline). */
export function configTable(): string {
  const rows = describeSettings().map(
    (setting) => `| \`${setting.name}\` | ${cell(setting.default)} | ${cell(setting.values)} | ${cell(setting.description)} |`,
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
    .map((setting) => `  ${setting.name} (default: ${plain(setting.default)}; ${plain(setting.values)})\n      ${plain(setting.description)}`)
    .join('\n');
}

export const CONFIG_TABLE_START = '<!-- config-table:start (generated from src/config/schema.ts: npm run config-table) -->';
export const CONFIG_TABLE_END = '<!-- config-table:end -->';

/** `readme` with the generated table between its markers; throws when the markers are missing. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(CONFIG_TABLE_START);
  const end = readme.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error(`the README has no ${CONFIG_TABLE_START} … ${CONFIG_TABLE_END} markers`);
  return `${readme.slice(0, start + CONFIG_TABLE_START.length)}\n${configTable()}${readme.slice(end)}`;
}

/**
 * `.env.example`: every setting, commented out at its default (or unset), with its meaning.
 * Generated like the README table (`npm run config-table` writes both; a test fails when it drifts).
 */
export function envExample(): string {
  const blocks = describeSettings().map((setting) => {
    const shown = plain(setting.default);
    const value = setting.default.startsWith('`') && setting.default.endsWith('`') && !setting.default.slice(1, -1).includes('`') ? shown : '';
    return [`# ${plain(setting.description)}`, `# values: ${plain(setting.values)}; default: ${shown}`, `# ${setting.name}=${value}`].join('\n');
  });
  return ['# coregate settings (generated from src/config/schema.ts by `npm run config-table`).', '# Copy to .env (or your unit file\'s EnvironmentFile) and uncomment what you change.', '', blocks.join('\n\n'), ''].join('\n');
}
