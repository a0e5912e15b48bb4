/**
 * The rule of each setting of an institution's core, defined once: the environment schema reads
 * it for the default institution (`src/config/schema.ts`, via `institution-setting-schema.ts`)
 * and `institutions add|update` checks with it (`src/app/institution-admin.ts`), so a value one
 * accepts the other accepts too (docs/behaviour.md#institution-settings).
 *
 * A rule names fields, never a variable or a flag: the schema holds each variable's name,
 * default and description, the CLI its flag. Text is judged trimmed, as the environment reads it.
 */
import { CORE_KINDS, FINERACT_CUSTOMER_KEY_MODES, FINERACT_SSN_LOOKUP_MODES } from './institution.js';

/** A whole number within `[minimum, maximum]`. */
interface WholeNumberRule {
  readonly kind: 'whole-number';
  readonly minimum: number;
  readonly maximum: number;
}

/** One line of text matching `pattern` (a JSON Schema `pattern`), refused with `rule`. */
interface TextRule {
  readonly kind: 'text';
  readonly pattern: string;
  readonly rule: string;
}

/** One of a closed list of words. */
interface OneOfRule {
  readonly kind: 'one-of';
  readonly values: readonly string[];
}

/** An `http://` or `https://` URL without credentials (they would end up in logs). */
interface HttpUrlRule {
  readonly kind: 'http-url';
}

export type InstitutionSettingRule = WholeNumberRule | TextRule | OneOfRule | HttpUrlRule;

/**
 * The rules, by the field of an institution they judge. A new setting is one line here, its
 * variable in the schema (`institutionSettingSchema('field', …)`), its field in
 * `InstitutionInput` and its flag in the CLI's table; the bounds test then covers it.
 */
export const INSTITUTION_SETTING_RULES = {
  coreUrl: { kind: 'http-url' },
  /** Sent as a header: visible ASCII only. */
  coreApiKey: {
    kind: 'text',
    pattern: '^[\\x21-\\x7e]{1,1024}$',
    rule: 'must hold 1 to 1024 visible ASCII characters (one line)',
  },
  coreKind: { kind: 'one-of', values: CORE_KINDS },
  coreTimeoutMs: { kind: 'whole-number', minimum: 100, maximum: 120_000 },
  /** Sent as a header (`Fineract-Platform-TenantId`): visible ASCII only. */
  fineractTenant: {
    kind: 'text',
    pattern: '^[\\x21-\\x7e]{1,100}$',
    rule: 'must be 1 to 100 visible ASCII characters',
  },
  /** A document type's name as Fineract shows it ("SSN", "Social Security Number"): printable, one line. */
  fineractSsnDocumentType: {
    kind: 'text',
    pattern: '^[\\x20-\\x7e]{1,100}$',
    rule: 'must be 1 to 100 printable ASCII characters',
  },
  fineractCustomerKey: { kind: 'one-of', values: FINERACT_CUSTOMER_KEY_MODES },
  fineractSsnLookup: { kind: 'one-of', values: FINERACT_SSN_LOOKUP_MODES },
  /** At least a minute, at most a day. */
  fineractSessionTtlSeconds: { kind: 'whole-number', minimum: 60, maximum: 86_400 },
} as const satisfies Readonly<Record<string, InstitutionSettingRule>>;

export type InstitutionSettingName = keyof typeof INSTITUTION_SETTING_RULES;

/** Why `value` is not an http(s) URL without credentials; `undefined` when it is one. */
export function httpUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an http:// or https:// URL without credentials';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return 'must be an http:// or https:// URL without credentials';
  // Never the URL itself: its credentials are what is refused.
  return url.username === '' && url.password === '' ? undefined : 'must not hold credentials (a user or a password)';
}

/** Why `value` breaks the rule of setting `name`, in words; `undefined` when it keeps it. */
export function institutionSettingProblem(name: InstitutionSettingName, value: string | number): string | undefined {
  const rule: InstitutionSettingRule = INSTITUTION_SETTING_RULES[name];
  if (rule.kind === 'whole-number') {
    return typeof value === 'number' && Number.isInteger(value) && value >= rule.minimum && value <= rule.maximum
      ? undefined
      : `must be a whole number from ${rule.minimum} to ${rule.maximum}`;
  }
  if (typeof value !== 'string') return 'must be text';
  const text = value.trim();
  switch (rule.kind) {
    case 'text':
      return new RegExp(rule.pattern).test(text) ? undefined : rule.rule;
    case 'one-of':
      return rule.values.includes(text) ? undefined : `must be one of ${rule.values.join(', ')}`;
    case 'http-url':
      return httpUrlProblem(text);
  }
}
