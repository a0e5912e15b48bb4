/**
 * COREGATE_KEY_STORE, COREGATE_SIGNING_ALG and the COREGATE_PKCS11_… settings: their
 * defaults, and a PKCS#11 store without its module, PIN file or token refused at start in
 * one line naming the variable. With the HSM the encryption key comes from the token, so
 * DATABASE_URL no longer needs COREGATE_ENCRYPTION_KEY.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const PKCS11 = {
  COREGATE_KEY_STORE: 'pkcs11',
  COREGATE_PKCS11_LIBRARY: '/usr/lib/softhsm/libsofthsm2.so',
  COREGATE_PKCS11_TOKEN_LABEL: 'coregate',
  COREGATE_PKCS11_PIN_FILE: 'secrets/pin',
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

describe('COREGATE_KEY_STORE, COREGATE_SIGNING_ALG and COREGATE_PKCS11_…', () => {
  it('defaults to the file store, EdDSA, and no token', () => {
    const config = loadConfig({}, '/srv/coregate');
    assert.equal(config.keyStore, 'file');
    assert.equal(config.signingAlg, 'EdDSA');
    assert.equal(config.pkcs11, undefined);
  });

  it('reads the token settings, the PIN file made absolute, and the label prefix and pool defaults', () => {
    const config = loadConfig({ ...PKCS11, COREGATE_SIGNING_ALG: 'ES256' }, '/srv/coregate');
    assert.equal(config.signingAlg, 'ES256');
    assert.deepEqual(config.pkcs11, {
      library: '/usr/lib/softhsm/libsofthsm2.so',
      tokenLabel: 'coregate',
      slot: undefined,
      pinFile: '/srv/coregate/secrets/pin',
      keyLabelPrefix: 'coregate-',
      sessions: 4,
    });
  });

  it('needs no COREGATE_ENCRYPTION_KEY with DATABASE_URL: the token keeps it', () => {
    const config = loadConfig({ ...PKCS11, DATABASE_URL: 'postgres://coregate@db/coregate' }, '/srv/coregate');
    assert.equal(config.encryptionKey, undefined);
  });

  it('refuses a missing module, PIN file or token, a token named twice, and an unknown algorithm', () => {
    const without = (name: keyof typeof PKCS11) =>
      Object.fromEntries(Object.entries(PKCS11).filter(([key]) => key !== name));
    assert.equal(refusal(without('COREGATE_PKCS11_LIBRARY')).variable, 'COREGATE_PKCS11_LIBRARY');
    assert.equal(refusal(without('COREGATE_PKCS11_PIN_FILE')).variable, 'COREGATE_PKCS11_PIN_FILE');
    assert.equal(refusal(without('COREGATE_PKCS11_TOKEN_LABEL')).variable, 'COREGATE_PKCS11_TOKEN_LABEL');
    assert.equal(refusal({ ...PKCS11, COREGATE_PKCS11_SLOT: '3' }).variable, 'COREGATE_PKCS11_SLOT');
    const alg = refusal({ COREGATE_SIGNING_ALG: 'RS256' });
    assert.equal(alg.variable, 'COREGATE_SIGNING_ALG');
    assert.match(alg.message, /EdDSA, ES256, PS256/);
    assert.equal(refusal({ COREGATE_KEY_STORE: 'vault' }).variable, 'COREGATE_KEY_STORE');
  });
});
