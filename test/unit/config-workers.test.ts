/** `COREGATE_WORKERS` (src/server/cluster.ts): several processes only where they can share everything. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const SHARED = {
  DATABASE_URL: 'postgres://coregate@db.internal/coregate',
  COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  CORE_URL: 'https://core.bank.example/coregate',
};

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env, '/srv/coregate');
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.variable, 'COREGATE_WORKERS');
    assert.ok(!error.message.includes('\n'), 'one line');
    return error.message;
  }
  assert.fail('accepted');
}

describe('COREGATE_WORKERS', () => {
  it('is 1 (no cluster) by default', () => {
    assert.equal(loadConfig({}, '/srv/coregate').workers, 1);
    assert.equal(loadConfig(SHARED, '/srv/coregate').workers, 1);
  });

  it('takes several workers on PostgreSQL with an external core', () => {
    assert.equal(loadConfig({ ...SHARED, COREGATE_WORKERS: '4' }, '/srv/coregate').workers, 4);
    assert.equal(loadConfig({ COREGATE_WORKERS: '1' }, '/srv/coregate').workers, 1);
  });

  it('refuses more than one with the embedded database', () => {
    assert.match(
      refusal({ COREGATE_WORKERS: '2', CORE_URL: SHARED.CORE_URL }),
      /^invalid configuration: COREGATE_WORKERS must be 1 with the embedded database \(got 2\); set DATABASE_URL/,
    );
  });

  it('refuses more than one with the built-in core simulator', () => {
    const { CORE_URL: _core, ...withoutCore } = SHARED;
    assert.match(
      refusal({ ...withoutCore, COREGATE_WORKERS: '2' }),
      /must be 1 with the built-in core simulator \(got 2\); set CORE_URL/,
    );
  });

  it('refuses what is not a count from 1 to 256', () => {
    for (const value of ['0', '-1', 'two', '1.5', '257'])
      assert.match(refusal({ ...SHARED, COREGATE_WORKERS: value }), /COREGATE_WORKERS must be/);
  });
});
