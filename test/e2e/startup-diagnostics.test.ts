/**
 * `bin/coregate serve` tells the operator what is wrong with its set-up, as a real process:
 * an unreachable PostgreSQL stops the start in one line naming the address and the cause
 * (never the password), a misspelt `COREGATE_` variable and an issuer guessed from a
 * wildcard listen address are warned about.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { closedPort } from '../http/ops/ops-requests.js';
import { killAll, runCli, startServer, startWarnings, tempDataDir } from './support/process.js';

after(killAll);

describe('start-up diagnostics', { timeout: 240_000 }, () => {
  it('an unreachable PostgreSQL: one line naming the address and the cause, exit non-zero, no password', async () => {
    const port = await closedPort();
    const password = 'pw-not-to-print-7f3a';
    const env = {
      DATABASE_URL: `postgres://coregate:${password}@127.0.0.1:${port}/coregate`,
      COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'debug',
    };
    for (const command of [['serve'], ['migrate']]) {
      const result = await runCli(command, env, 30_000);
      assert.notEqual(result.code, 0, `${command[0]} exits non-zero`);
      assert.match(
        result.stderr,
        new RegExp(`coregate: could not connect to PostgreSQL at 127\\.0\\.0\\.1:${port}: connection refused`),
        result.stderr,
      );
      assert.ok(!result.stderr.includes('temporarily unavailable'), result.stderr);
      assert.ok(!(result.stderr + result.stdout).includes(password), 'the password is never printed');
    }
  });

  it('warns of a misspelt COREGATE_ variable and of an issuer guessed from HOST=0.0.0.0', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const server = await startServer({ COREGATE_DATA_DIR: data.dir, HOST: '0.0.0.0', COREGATE_WOKRERS: '2' });
    t.after(() => server.kill());
    const issuerWarning = /^COREGATE_ISSUER is not set and HOST=0\.0\.0\.0 listens on every address/;
    const warnings = await startWarnings(server, [/^COREGATE_WOKRERS is not a coregate setting/, issuerWarning]);
    assert.ok(
      warnings.includes('COREGATE_WOKRERS is not a coregate setting and is ignored (did you mean COREGATE_WORKERS?)'),
      warnings.join('\n'),
    );
    assert.ok(
      warnings.some((msg) => issuerWarning.test(msg) && msg.includes(server.url)),
      warnings.join('\n'),
    );
    assert.equal((await server.stop()).code, 0);
  });
});
