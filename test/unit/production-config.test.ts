/**
 * Configuration of production operation: NODE_ENV=production, HTTPS files, how
 * token requests may arrive, and the rate-limit settings — each bad value a
 * one-line ConfigError naming its variable.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readTlsCredentials } from '../../src/adapters/tls/read-tls-credentials.js';
import { ConfigError, DEFAULTS, loadConfig } from '../../src/config/config.js';
import { isLoopbackHost, tokenTransport } from '../../src/config/token-transport.js';
import { selfSignedCertificate, type TestCertificate } from '../support/tls.js';

const KEY = randomBytes(32).toString('base64');

function refusal(action: () => unknown, variable: string, reason?: RegExp): ConfigError {
  let caught: ConfigError | undefined;
  assert.throws(action, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.equal(error.variable, variable);
    assert.ok(error.message.includes(variable), `"${error.message}" names ${variable}`);
    assert.ok(!error.message.includes('\n'), 'one line');
    if (reason) assert.match(error.message, reason);
    caught = error;
    return true;
  });
  return caught!;
}

describe('NODE_ENV=production', () => {
  it('requires COREGATE_ENCRYPTION_KEY even with the embedded database', () => {
    refusal(
      () => loadConfig({ NODE_ENV: 'production' }, '/srv'),
      'COREGATE_ENCRYPTION_KEY',
      /required with NODE_ENV=production/,
    );
    refusal(() => loadConfig({ NODE_ENV: 'Production' }, '/srv'), 'COREGATE_ENCRYPTION_KEY');
    assert.equal(loadConfig({ NODE_ENV: 'production', COREGATE_ENCRYPTION_KEY: KEY }, '/srv').production, true);
  });

  it('still names DATABASE_URL as the reason when both apply', () => {
    refusal(
      () => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/coregate' }, '/srv'),
      'COREGATE_ENCRYPTION_KEY',
      /required with DATABASE_URL/,
    );
  });

  it('is off for any other NODE_ENV, which needs no key on the embedded database', () => {
    for (const value of ['development', 'test', '', 'prod']) {
      assert.equal(loadConfig({ NODE_ENV: value }, '/srv').production, false, value);
    }
    assert.equal(loadConfig({}, '/srv').production, false);
  });
});

describe('COREGATE_TLS_CERT_FILE and COREGATE_TLS_KEY_FILE', () => {
  let certificate: TestCertificate;
  let other: TestCertificate;
  before(() => {
    certificate = selfSignedCertificate();
    other = selfSignedCertificate('other');
  });
  after(() => {
    certificate?.remove();
    other?.remove();
  });

  it('are both or neither', () => {
    refusal(
      () => loadConfig({ COREGATE_TLS_CERT_FILE: '/etc/tls/cert.pem' }, '/srv'),
      'COREGATE_TLS_KEY_FILE',
      /set both/,
    );
    refusal(
      () => loadConfig({ COREGATE_TLS_KEY_FILE: '/etc/tls/key.pem' }, '/srv'),
      'COREGATE_TLS_CERT_FILE',
      /set both/,
    );
    const config = loadConfig(
      { COREGATE_TLS_CERT_FILE: 'tls/cert.pem', COREGATE_TLS_KEY_FILE: '/etc/tls/key.pem' },
      '/srv',
    );
    assert.equal(config.tlsCertFile, '/srv/tls/cert.pem', 'relative to the working directory');
    assert.equal(config.tlsKeyFile, '/etc/tls/key.pem');
    assert.equal(readTlsCredentials(loadConfig({}, '/srv')), undefined);
  });

  it('are read and checked at start: a certificate, its unencrypted key, matching', () => {
    const tls = readTlsCredentials({ tlsCertFile: certificate.certFile, tlsKeyFile: certificate.keyFile });
    assert.ok(tls);
    assert.match(tls.cert.toString(), /BEGIN CERTIFICATE/);
    assert.ok(tls.validTo.getTime() > Date.now());
  });

  it('refuse unreadable files, naming the variable and the path', () => {
    const missing = join(certificate.dir, 'missing.pem');
    refusal(
      () => readTlsCredentials({ tlsCertFile: missing, tlsKeyFile: certificate.keyFile }),
      'COREGATE_TLS_CERT_FILE',
      /cannot be read: .*missing\.pem \(ENOENT\)/,
    );
    refusal(
      () => readTlsCredentials({ tlsCertFile: certificate.certFile, tlsKeyFile: missing }),
      'COREGATE_TLS_KEY_FILE',
      /ENOENT/,
    );
  });

  it('refuse a certificate file without a certificate, and a key file without a key, never echoing the key', () => {
    refusal(
      () => readTlsCredentials({ tlsCertFile: certificate.keyFile, tlsKeyFile: certificate.keyFile }),
      'COREGATE_TLS_CERT_FILE',
      /is not a PEM certificate/,
    );
    const error = refusal(
      () => readTlsCredentials({ tlsCertFile: certificate.certFile, tlsKeyFile: certificate.certFile }),
      'COREGATE_TLS_KEY_FILE',
      /is not an unencrypted PEM private key/,
    );
    assert.ok(!error.message.includes('BEGIN'));
    const garbage = join(certificate.dir, 'garbage.pem');
    writeFileSync(garbage, 'not pem at all');
    refusal(
      () => readTlsCredentials({ tlsCertFile: certificate.certFile, tlsKeyFile: garbage }),
      'COREGATE_TLS_KEY_FILE',
    );
  });

  it('refuse a key that does not belong to the certificate', () => {
    refusal(
      () => readTlsCredentials({ tlsCertFile: certificate.certFile, tlsKeyFile: other.keyFile }),
      'COREGATE_TLS_KEY_FILE',
      /does not match the certificate/,
    );
  });
});

describe('how token requests may arrive (tokenTransport)', () => {
  const base = { tlsCertFile: undefined, trustProxy: false as const, host: '127.0.0.1' };

  it('allows plain HTTP only on loopback without a trusted proxy', () => {
    assert.equal(tokenTransport(base), 'loopback');
    assert.equal(tokenTransport({ ...base, host: 'localhost' }), 'loopback');
    assert.equal(tokenTransport({ ...base, host: '::1' }), 'loopback');
    assert.equal(tokenTransport({ ...base, host: '0.0.0.0' }), 'refused');
    assert.equal(tokenTransport({ ...base, host: '::' }), 'refused');
    assert.equal(tokenTransport({ ...base, host: '10.0.0.5' }), 'refused');
    assert.equal(
      tokenTransport({ ...base, trustProxy: true }),
      'proxy',
      'a trusted proxy on loopback: its X-Forwarded-Proto decides',
    );
    assert.equal(tokenTransport({ ...base, host: '0.0.0.0', trustProxy: ['10.0.0.0/8'] }), 'proxy');
    assert.equal(tokenTransport({ ...base, host: '0.0.0.0', tlsCertFile: '/etc/tls/cert.pem' }), 'tls');
  });

  it('knows loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])
      assert.ok(isLoopbackHost(host), host);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.com', '::ffff:10.0.0.1', '127.example.com'])
      assert.ok(!isLoopbackHost(host), host);
  });
});

describe('rate-limit settings', () => {
  it('have documented defaults high enough for normal use', () => {
    const config = loadConfig({}, '/srv');
    assert.deepEqual(config.rateLimits, {
      gatewayPerClientPerMinute: DEFAULTS.COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE,
      tokenPerClientPerMinute: DEFAULTS.COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE,
      tokenPerIpPerMinute: DEFAULTS.COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE,
      authFailuresPerIp: DEFAULTS.COREGATE_RATE_LIMIT_AUTH_FAILURES,
      authFailureWindowSeconds: DEFAULTS.COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS,
      bearerFailuresPerIpPerMinute: DEFAULTS.COREGATE_RATE_LIMIT_BEARER_FAILURES_PER_MINUTE,
    });
    assert.deepEqual(Object.values(config.rateLimits), [6000, 600, 1200, 30, 300, 120]);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.redisKeyPrefix, 'coregate:rl:');
  });

  it('read every variable; 0 turns a limit off', () => {
    const config = loadConfig(
      {
        COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '0',
        COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: '60',
        COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: '120',
        COREGATE_RATE_LIMIT_AUTH_FAILURES: '10',
        COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS: '900',
        COREGATE_RATE_LIMIT_BEARER_FAILURES_PER_MINUTE: '0',
        COREGATE_REDIS_URL: 'rediss://:secret@redis.internal:6380/2',
        COREGATE_REDIS_KEY_PREFIX: 'bank-a:coregate:',
      },
      '/srv',
    );
    assert.deepEqual(config.rateLimits, {
      gatewayPerClientPerMinute: 0,
      tokenPerClientPerMinute: 60,
      tokenPerIpPerMinute: 120,
      authFailuresPerIp: 10,
      authFailureWindowSeconds: 900,
      bearerFailuresPerIpPerMinute: 0,
    });
    assert.equal(config.redisUrl, 'rediss://:secret@redis.internal:6380/2');
    assert.equal(config.redisKeyPrefix, 'bank-a:coregate:');
  });

  it('refuse bad values, never echoing a Redis password', () => {
    refusal(
      () => loadConfig({ COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '-1' }, '/srv'),
      'COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE',
    );
    refusal(
      () => loadConfig({ COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: 'lots' }, '/srv'),
      'COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE',
    );
    refusal(
      () => loadConfig({ COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: '1.5' }, '/srv'),
      'COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE',
    );
    refusal(
      () => loadConfig({ COREGATE_RATE_LIMIT_AUTH_FAILURES: '2000000000' }, '/srv'),
      'COREGATE_RATE_LIMIT_AUTH_FAILURES',
    );
    refusal(
      () => loadConfig({ COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS: '0' }, '/srv'),
      'COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS',
    );
    const error = refusal(
      () => loadConfig({ COREGATE_REDIS_URL: 'http://:hunter2@redis:6379' }, '/srv'),
      'COREGATE_REDIS_URL',
      /redis: or rediss:/,
    );
    assert.ok(!error.message.includes('hunter2'));
    refusal(() => loadConfig({ COREGATE_REDIS_URL: 'not a url :hunter2' }, '/srv'), 'COREGATE_REDIS_URL');
    refusal(() => loadConfig({ COREGATE_REDIS_KEY_PREFIX: 'has space' }, '/srv'), 'COREGATE_REDIS_KEY_PREFIX');
  });
});
