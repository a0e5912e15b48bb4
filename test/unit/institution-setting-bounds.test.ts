/**
 * One definition per institution setting (src/domain/institution-settings.ts): the environment
 * variable of the default institution and `institutions add|update` accept and refuse exactly the
 * same values, at each bound and around it. A property over values near every bound, plus the
 * bounds themselves written out.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { institutionInputProblems } from '../../src/app/institution-admin.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import type { SettingName } from '../../src/config/schema.js';
import {
  INSTITUTION_SETTING_RULES,
  type InstitutionSettingName,
  type InstitutionSettingRule,
} from '../../src/domain/institution-settings.js';

/** Each setting's variable for the default institution: a new setting does not compile without one. */
const VARIABLE: { readonly [Name in InstitutionSettingName]: SettingName } = {
  coreUrl: 'CORE_URL',
  coreApiKey: 'COREGATE_CORE_API_KEY',
  coreKind: 'COREGATE_CORE_KIND',
  coreTimeoutMs: 'COREGATE_CORE_TIMEOUT_MS',
  fineractTenant: 'COREGATE_FINERACT_TENANT',
  fineractSsnDocumentType: 'COREGATE_FINERACT_SSN_DOCUMENT_TYPE',
  fineractCustomerKey: 'COREGATE_FINERACT_CUSTOMER_KEY',
  fineractSsnLookup: 'COREGATE_FINERACT_SSN_LOOKUP',
  fineractSessionTtlSeconds: 'COREGATE_FINERACT_SESSION_TTL_SECONDS',
};

/** A default institution on Fineract, so that every setting above is read and needed. */
const BASE_ENV = {
  COREGATE_CORE_KIND: 'fineract',
  CORE_URL: 'https://fineract.bank.example/fineract-provider',
  COREGATE_FINERACT_USERNAME: 'coregate-ro',
  COREGATE_FINERACT_PASSWORD: 'pw',
};

function environmentAccepts(name: InstitutionSettingName, value: string | number): boolean {
  try {
    loadConfig({ ...BASE_ENV, [VARIABLE[name]]: String(value) }, '/srv/coregate');
    return true;
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.variable, VARIABLE[name], error.message);
    return false;
  }
}

function adminAccepts(name: InstitutionSettingName, value: string | number): boolean {
  const problems = institutionInputProblems({ [name]: value });
  assert.ok(
    problems.every((problem) => problem.path === name),
    JSON.stringify(problems),
  );
  return problems.length === 0;
}

/** Characters either side of every text rule's edges: controls, space, visible ASCII, DEL, beyond ASCII. */
const CHARACTER = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
  fc.constantFrom(' ', '\t', '\n', '\r', '\0', '\x1f', '\x7f', '\x80', '\u00a0', 'é', '\u2028', '😀'),
);

/** Values of `rule` around its bounds; blank text is left out: the environment reads it as unset. */
function valuesNear(rule: InstitutionSettingRule): fc.Arbitrary<string | number> {
  switch (rule.kind) {
    case 'whole-number': {
      const { minimum, maximum } = rule;
      return fc.oneof(
        fc.constantFrom(minimum - 1, minimum, minimum + 1, maximum - 1, maximum, maximum + 1, 0, -minimum),
        fc.integer({ min: minimum - 1000, max: minimum + 1000 }),
        fc.integer({ min: maximum - 1000, max: maximum + 1000 }),
        fc.integer(),
        fc.double({ min: minimum - 10, max: maximum + 10, noNaN: true }),
      );
    }
    case 'text': {
      const longest = Number(/\{1,(\d+)\}/.exec(rule.pattern)?.[1]);
      return fc
        .oneof(
          fc.string({ unit: CHARACTER, maxLength: 8 }),
          fc.string({ unit: CHARACTER, minLength: longest - 3, maxLength: longest + 3 }),
          fc.string({
            unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
            minLength: longest - 2,
            maxLength: longest + 2,
          }),
        )
        .filter((text) => text.trim() !== '');
    }
    case 'one-of':
      return fc
        .oneof(
          fc.constantFrom(...rule.values),
          fc.constantFrom(...rule.values).map((value) => ` ${value}\t`),
          fc.constantFrom(...rule.values).map((value) => value.toUpperCase()),
          fc.string({ unit: CHARACTER, maxLength: 12 }),
        )
        .filter((text) => text.trim() !== '');
    case 'http-url':
      return fc
        .oneof(
          fc.webUrl(),
          fc.webUrl({ authoritySettings: { withUserInfo: true }, withQueryParameters: true }),
          fc.constantFrom(
            'ftp://core.example',
            'http://',
            'core.example',
            'http://user:pw@core.example',
            'https://:pw@h',
          ),
          fc.string({ unit: CHARACTER, maxLength: 20 }),
        )
        .filter((text) => text.trim() !== '');
  }
}

describe('one definition per institution setting', () => {
  for (const [name, rule] of Object.entries(INSTITUTION_SETTING_RULES) as Array<
    [InstitutionSettingName, InstitutionSettingRule]
  >) {
    it(`${VARIABLE[name]} and institutions add|update accept and refuse the same values of ${name}`, () => {
      fc.assert(
        fc.property(valuesNear(rule), (value) => {
          assert.equal(adminAccepts(name, value), environmentAccepts(name, value), JSON.stringify(value));
        }),
        { numRuns: 200 },
      );
    });
  }

  it('holds the bounds both read: the core timeout from 100 ms, a Fineract session from a minute to a day', () => {
    for (const [name, value, accepted] of [
      ['coreTimeoutMs', 99, false],
      ['coreTimeoutMs', 100, true],
      ['coreTimeoutMs', 120_000, true],
      ['coreTimeoutMs', 120_001, false],
      ['fineractSessionTtlSeconds', 59, false],
      ['fineractSessionTtlSeconds', 60, true],
      ['fineractSessionTtlSeconds', 86_400, true],
      ['fineractSessionTtlSeconds', 86_401, false],
      ['fineractTenant', 'a'.repeat(100), true],
      ['fineractTenant', 'a'.repeat(101), false],
      ['fineractTenant', 'bank a', false],
      ['fineractSsnDocumentType', 'Social Security Number', true],
      ['coreUrl', 'https://user:pw@core.example', false],
    ] as const) {
      assert.equal(environmentAccepts(name, value), accepted, `${VARIABLE[name]}=${value}`);
      assert.equal(adminAccepts(name, value), accepted, `${name} ${value}`);
    }
  });
});
