/**
 * The environment variable of an institution setting, built from the setting's one rule
 * (`src/domain/institution-settings.ts`): the default institution's variables and
 * `institutions add|update` then accept and refuse the same values. The schema entry adds only
 * what belongs to the variable: its default, its description, how its values read.
 */
import { Type, type TInteger, type TLiteral, type TString, type TUnion } from '@sinclair/typebox';
import {
  INSTITUTION_SETTING_RULES,
  type InstitutionSettingName,
  type InstitutionSettingRule,
} from '../domain/institution-settings.js';

/** The schema annotations a variable adds to its rule (schema.ts explains `defaultText` and `valuesText`). */
interface VariableOptions {
  readonly description: string;
  readonly default?: string | number;
  readonly defaultText?: string;
  readonly valuesText?: string;
}

type Rules = typeof INSTITUTION_SETTING_RULES;
type SchemaOf<Rule> = Rule extends { readonly kind: 'whole-number' }
  ? TInteger
  : Rule extends { readonly kind: 'one-of'; readonly values: ReadonlyArray<infer Value extends string> }
    ? TUnion<Array<TLiteral<Value>>>
    : TString;

/** The variable of setting `name`: its rule as a TypeBox schema, with `options`. */
export function institutionSettingSchema<Name extends InstitutionSettingName>(
  name: Name,
  options: VariableOptions,
): SchemaOf<Rules[Name]> {
  const rule: InstitutionSettingRule = INSTITUTION_SETTING_RULES[name];
  switch (rule.kind) {
    case 'whole-number':
      return Type.Integer({ minimum: rule.minimum, maximum: rule.maximum, ...options }) as SchemaOf<Rules[Name]>;
    case 'text':
      return Type.String({
        pattern: rule.pattern,
        errorMessage: rule.rule,
        valuesText: 'text',
        ...options,
      }) as SchemaOf<Rules[Name]>;
    case 'one-of':
      return Type.Union(
        rule.values.map((value) => Type.Literal(value)),
        options,
      ) as SchemaOf<Rules[Name]>;
    case 'http-url':
      return Type.String({ format: 'core-url', ...options }) as SchemaOf<Rules[Name]>;
  }
}
