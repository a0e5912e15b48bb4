import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULTS, loadConfig } from '../../src/config/config.js';

const KEY = randomBytes(32).toString('base64');

/** Asserts that `env` is refused with a one-line ConfigError naming `variable`. */
function assertRefused(env: Record<string, string>, variable: string, reason?: RegExp): void {
  assert.throws(
    () => loadConfig(env, '/srv/coregate'),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      assert.equal(error.variable, variable);
      assert.ok(error.message.includes(variable), `message "${error.message}" does not name ${variable}`);
      assert.ok(!error.message.includes('\n'), 'the message is one line');
      if (reason) assert.match(error.message, reason);
      return true;
    },
  );
}

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({}, '/srv/coregate');
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, '/srv/coregate/data');
    assert.equal(config.coreUrl, undefined);
    assert.equal(config.encryptionKey, undefined);
    assert.equal(config.sessionSkewSeconds, 30);
    assert.equal(config.accessTokenTtlSeconds, 3600);
    assert.equal(config.refreshTokenTtlSeconds, DEFAULTS.COREGATE_REFRESH_TOKEN_TTL_SECONDS);
    assert.equal(config.issuer, undefined);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.trustProxy, false);
    assert.ok(Object.isFrozen(config));
  });

  it('treats blank values as unset', () => {
    const config = loadConfig({ PORT: '  ', LOG_LEVEL: '', DATABASE_URL: ' ' }, '/srv/coregate');
    assert.equal(config.port, 8080);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.databaseUrl, undefined);
  });

  it('reads every variable it is given', () => {
    const config = loadConfig(
      {
        PORT: '0',
        HOST: '0.0.0.0',
        DATABASE_URL: 'postgres://app@db.internal:5432/coregate',
        COREGATE_DATA_DIR: '/var/lib/coregate',
        CORE_URL: 'https://core.bank.internal',
        COREGATE_ENCRYPTION_KEY: KEY,
        COREGATE_SESSION_SKEW_SECONDS: '45',
        COREGATE_ACCESS_TOKEN_TTL_SECONDS: '600',
        COREGATE_ISSUER: 'https://auth.bank.example/',
        LOG_LEVEL: 'debug',
        COREGATE_TRUST_PROXY: 'true',
      },
      '/srv/coregate',
    );
    assert.equal(config.port, 0);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.databaseUrl, 'postgres://app@db.internal:5432/coregate');
    assert.equal(config.dataDir, '/var/lib/coregate');
    assert.equal(config.coreUrl, 'https://core.bank.internal');
    assert.deepEqual(config.encryptionKey, Buffer.from(KEY, 'base64'));
    assert.equal(config.sessionSkewSeconds, 45);
    assert.equal(config.accessTokenTtlSeconds, 600);
    assert.equal(config.issuer, 'https://auth.bank.example', 'a trailing slash is dropped');
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.trustProxy, true);
  });

  it('resolves a relative data dir against the working directory', () => {
    assert.equal(loadConfig({ COREGATE_DATA_DIR: 'var/db' }, '/srv/coregate').dataDir, '/srv/coregate/var/db');
    assert.equal(loadConfig({ COREGATE_DATA_DIR: '../shared' }, '/srv/coregate').dataDir, '/srv/shared');
  });

  const refused: Array<[string, Record<string, string>, string, RegExp?]> = [
    ['PORT=abc', { PORT: 'abc' }, 'PORT', /whole number/],
    ['PORT=70000', { PORT: '70000' }, 'PORT', /between 0 and 65535/],
    ['PORT=-1', { PORT: '-1' }, 'PORT'],
    ['PORT=80.5', { PORT: '80.5' }, 'PORT'],
    [
      'COREGATE_ENCRYPTION_KEY of 16 bytes',
      { COREGATE_ENCRYPTION_KEY: randomBytes(16).toString('base64') },
      'COREGATE_ENCRYPTION_KEY',
      /32 bytes/,
    ],
    [
      'COREGATE_ENCRYPTION_KEY not base64',
      { COREGATE_ENCRYPTION_KEY: 'not base64!' },
      'COREGATE_ENCRYPTION_KEY',
      /base64/,
    ],
    [
      'DATABASE_URL without COREGATE_ENCRYPTION_KEY',
      { DATABASE_URL: 'postgres://db/coregate' },
      'COREGATE_ENCRYPTION_KEY',
      /required with DATABASE_URL/,
    ],
    [
      'DATABASE_URL with another scheme',
      { DATABASE_URL: 'mysql://db/coregate', COREGATE_ENCRYPTION_KEY: KEY },
      'DATABASE_URL',
    ],
    ['DATABASE_URL not a URL', { DATABASE_URL: 'db:5432', COREGATE_ENCRYPTION_KEY: KEY }, 'DATABASE_URL'],
    ['LOG_LEVEL=loud', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of/],
    ['CORE_URL=ftp://…', { CORE_URL: 'ftp://core' }, 'CORE_URL'],
    ['COREGATE_ISSUER not a URL', { COREGATE_ISSUER: 'auth.bank' }, 'COREGATE_ISSUER'],
    ['COREGATE_SESSION_SKEW_SECONDS=soon', { COREGATE_SESSION_SKEW_SECONDS: 'soon' }, 'COREGATE_SESSION_SKEW_SECONDS'],
    [
      'COREGATE_ACCESS_TOKEN_TTL_SECONDS=10',
      { COREGATE_ACCESS_TOKEN_TTL_SECONDS: '10' },
      'COREGATE_ACCESS_TOKEN_TTL_SECONDS',
    ],
    ['COREGATE_TRUST_PROXY=maybe', { COREGATE_TRUST_PROXY: 'maybe' }, 'COREGATE_TRUST_PROXY'],
    [
      'COREGATE_PREVIOUS_ENCRYPTION_KEYS with a short key',
      { COREGATE_PREVIOUS_ENCRYPTION_KEYS: `${KEY},abcd` },
      'COREGATE_PREVIOUS_ENCRYPTION_KEYS',
      /32 bytes/,
    ],
  ];
  for (const [label, env, variable, reason] of refused) {
    it(`refuses ${label}, naming ${variable}`, () => assertRefused(env, variable, reason));
  }

  it('takes COREGATE_TRUST_PROXY as a list of proxy addresses and CIDR blocks', () => {
    assert.deepEqual(loadConfig({ COREGATE_TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,2001:db8::/32' }).trustProxy, [
      '10.0.0.0/8',
      '192.0.2.7/32',
      '2001:db8::/32',
    ]);
    assert.equal(loadConfig({ COREGATE_TRUST_PROXY: 'off' }).trustProxy, false);
    assertRefused({ COREGATE_TRUST_PROXY: '10.0.0.0/8,10.0.0.0/99' }, 'COREGATE_TRUST_PROXY');
  });

  it('never echoes a DATABASE_URL (it may hold a password)', () => {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'mysql://app:hunter2@db/coregate', COREGATE_ENCRYPTION_KEY: KEY }),
      (error: Error) => !error.message.includes('hunter2'),
    );
  });

  it('takes the token audience and the mutual-TLS settings, and refuses them where they cannot work', () => {
    assert.equal(
      loadConfig({ COREGATE_TOKEN_AUDIENCE: 'https://gw.bank.example/core/' }, '/srv').tokenAudience,
      'https://gw.bank.example/core',
    );
    assertRefused({ COREGATE_TOKEN_AUDIENCE: 'gw.bank.example' }, 'COREGATE_TOKEN_AUDIENCE');
    const proxied = loadConfig(
      { COREGATE_TLS_CLIENT_CERT_HEADER: 'X-Client-Cert', COREGATE_TRUST_PROXY: '10.0.0.1' },
      '/srv',
    );
    assert.equal(proxied.tlsClientCertHeader, 'x-client-cert');
    assertRefused(
      { COREGATE_TLS_CLIENT_CERT_HEADER: 'X-Client-Cert' },
      'COREGATE_TLS_CLIENT_CERT_HEADER',
      /TRUST_PROXY/,
    );
    assertRefused(
      { COREGATE_TLS_CLIENT_CERT_HEADER: 'x client cert', COREGATE_TRUST_PROXY: 'true' },
      'COREGATE_TLS_CLIENT_CERT_HEADER',
    );
    assertRefused({ COREGATE_TLS_CLIENT_CA_FILE: 'ca.pem' }, 'COREGATE_TLS_CLIENT_CA_FILE', /COREGATE_TLS_CERT_FILE/);
    assert.equal(
      loadConfig(
        { COREGATE_TLS_CLIENT_CA_FILE: 'ca.pem', COREGATE_TLS_CERT_FILE: 'c.pem', COREGATE_TLS_KEY_FILE: 'k.pem' },
        '/srv',
      ).tlsClientCaFile,
      '/srv/ca.pem',
    );
  });
});
