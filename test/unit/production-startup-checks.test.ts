/**
 * What `serve` logs about its set-up at start (`src/server/startup-checks.ts`): loud
 * warnings for the built-in simulator and the embedded database in production
 * mode, and how token requests must arrive (docs/behaviour.md#https).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { logStartupChecks } from '../../src/server/startup-checks.js';

const KEY = randomBytes(32).toString('base64');
const NOW = new Date('2026-03-01T12:00:00Z');

interface Line {
  readonly level: number;
  readonly msg: string;
}

function checks(
  env: Record<string, string>,
  facts: { simulator: boolean; validTo?: Date } = { simulator: false },
): Line[] {
  const lines: Line[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
  const tls = facts.validTo ? { cert: Buffer.alloc(0), key: Buffer.alloc(0), validTo: facts.validTo } : undefined;
  logStartupChecks(loadConfig(env, '/srv'), logger, { tls, simulator: facts.simulator, now: NOW });
  return lines;
}

const WARN = 40;
const warnings = (lines: Line[]) => lines.filter((line) => line.level >= WARN).map((line) => line.msg);

describe('start-up checks', () => {
  it('warn loudly in production about the built-in simulator and the embedded database', () => {
    const found = warnings(
      checks(
        { NODE_ENV: 'production', COREGATE_ENCRYPTION_KEY: KEY, COREGATE_TRUST_PROXY: 'true' },
        { simulator: true },
      ),
    );
    assert.equal(found.length, 2, found.join('\n'));
    assert.ok(found.some((msg) => /CORE_URL is not set: the BUILT-IN CORE SIMULATOR/.test(msg)));
    assert.ok(found.some((msg) => /EMBEDDED DATABASE/.test(msg)));
  });

  it('say nothing loud for a production set-up with PostgreSQL, a real core and a proxy', () => {
    const env = {
      NODE_ENV: 'production',
      COREGATE_ENCRYPTION_KEY: KEY,
      DATABASE_URL: 'postgres://db/coregate',
      CORE_URL: 'https://core.bank',
      COREGATE_TRUST_PROXY: '10.0.0.0/8',
      HOST: '0.0.0.0',
    };
    assert.deepEqual(warnings(checks(env)), []);
  });

  it('keep the simulator an info line in development', () => {
    const lines = checks({}, { simulator: true });
    assert.ok(lines.some((line) => line.level === 30 && /built-in core simulator/.test(line.msg)));
  });

  it('warn that plain HTTP token requests are allowed on loopback for development only', () => {
    assert.ok(
      warnings(checks({})).some((msg) =>
        /loopback address: token requests over HTTP are allowed for development only/.test(msg),
      ),
    );
  });

  it('warn that token requests are refused on a reachable address without TLS or a proxy', () => {
    assert.ok(
      warnings(checks({ HOST: '0.0.0.0' })).some((msg) => /token requests are refused .*HTTPS is required/.test(msg)),
    );
  });

  it('report HTTPS, and warn about a certificate about to expire or expired', () => {
    const env = {
      COREGATE_TLS_CERT_FILE: '/etc/tls/cert.pem',
      COREGATE_TLS_KEY_FILE: '/etc/tls/key.pem',
      HOST: '0.0.0.0',
    };
    assert.deepEqual(warnings(checks(env, { simulator: false, validTo: new Date('2027-01-01T00:00:00Z') })), []);
    assert.ok(
      warnings(checks(env, { simulator: false, validTo: new Date('2026-03-10T00:00:00Z') })).some((msg) =>
        /expires in 8 days/.test(msg),
      ),
    );
    assert.ok(
      checks(env, { simulator: false, validTo: new Date('2026-02-01T00:00:00Z') }).some(
        (line) => line.level === 50 && /expired/.test(line.msg),
      ),
    );
  });
});
