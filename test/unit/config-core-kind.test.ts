/**
 * The default institution's core kind from the environment: COREGATE_CORE_KIND and the
 * COREGATE_FINERACT_… settings, their defaults, and a Fineract core without its context root or
 * service user refused at start, naming the missing variable and never echoing the password.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const FINERACT = {
  COREGATE_CORE_KIND: 'fineract',
  CORE_URL: 'https://fineract.bank.example/fineract-provider',
  COREGATE_FINERACT_USERNAME: 'coregate-ro',
  COREGATE_FINERACT_PASSWORD: 'hunter2-secret',
};

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, '/srv/coregate');
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.ok(!error.message.includes('\n'), 'one line');
    return error;
  }
  assert.fail('expected a ConfigError');
}

describe('COREGATE_CORE_KIND and COREGATE_FINERACT_…', () => {
  it('defaults to the reference core protocol, with the documented Fineract defaults', () => {
    const config = loadConfig({}, '/srv/coregate');
    assert.equal(config.coreKind, 'coregate');
    assert.deepEqual(config.fineract, {
      tenant: 'default',
      ssnDocumentType: 'SSN',
      customerKey: 'id',
      ssnLookup: 'client-search',
      sessionTtlSeconds: 900,
    });
    assert.equal(config.fineractCredentials, undefined);
  });

  it('reads a Fineract default institution', () => {
    const config = loadConfig(
      {
        ...FINERACT,
        COREGATE_FINERACT_TENANT: 'bank-a',
        COREGATE_FINERACT_SSN_DOCUMENT_TYPE: 'Social Security Number',
        COREGATE_FINERACT_CUSTOMER_KEY: 'external-id',
        COREGATE_FINERACT_SESSION_TTL_SECONDS: '300',
      },
      '/srv/coregate',
    );
    assert.equal(config.coreKind, 'fineract');
    assert.equal(config.coreUrl, FINERACT.CORE_URL);
    assert.deepEqual(config.fineract, {
      tenant: 'bank-a',
      ssnDocumentType: 'Social Security Number',
      customerKey: 'external-id',
      ssnLookup: 'client-search',
      sessionTtlSeconds: 300,
    });
    assert.deepEqual(config.fineractCredentials, { username: 'coregate-ro', password: 'hunter2-secret' });
    assert.ok(Object.isFrozen(config.fineract) && Object.isFrozen(config.fineractCredentials));
  });

  for (const missing of ['CORE_URL', 'COREGATE_FINERACT_USERNAME', 'COREGATE_FINERACT_PASSWORD'] as const) {
    it(`refuses COREGATE_CORE_KIND=fineract without ${missing}, naming it`, () => {
      const env: Record<string, string> = { ...FINERACT };
      delete env[missing];
      const error = refusal(env);
      assert.equal(error.variable, missing);
      assert.match(error.message, /is required with COREGATE_CORE_KIND=fineract/);
      assert.doesNotMatch(error.message, /hunter2-secret/);
    });
  }

  const refused: ReadonlyArray<readonly [string, Record<string, string>, string, RegExp]> = [
    ['an unknown kind', { COREGATE_CORE_KIND: 'temenos' }, 'COREGATE_CORE_KIND', /one of coregate, fineract/],
    [
      'an unknown customer key mode',
      { COREGATE_FINERACT_CUSTOMER_KEY: 'accountNo' },
      'COREGATE_FINERACT_CUSTOMER_KEY',
      /one of id, external-id/,
    ],
    [
      'a session lifetime under a minute',
      { COREGATE_FINERACT_SESSION_TTL_SECONDS: '30' },
      'COREGATE_FINERACT_SESSION_TTL_SECONDS',
      /between 60 and 86400/,
    ],
    [
      'a session lifetime over a day',
      { COREGATE_FINERACT_SESSION_TTL_SECONDS: '90000' },
      'COREGATE_FINERACT_SESSION_TTL_SECONDS',
      /between 60 and 86400/,
    ],
    [
      'a user name with a colon',
      { ...FINERACT, COREGATE_FINERACT_USERNAME: 'a:b' },
      'COREGATE_FINERACT_USERNAME',
      /without ":"/,
    ],
    ['a tenant with a space', { COREGATE_FINERACT_TENANT: 'bank a' }, 'COREGATE_FINERACT_TENANT', /visible ASCII/],
  ];
  for (const [label, env, variable, reason] of refused) {
    it(`refuses ${label}, naming ${variable}`, () => {
      const error = refusal(env);
      assert.equal(error.variable, variable);
      assert.match(error.message, reason);
    });
  }
});
