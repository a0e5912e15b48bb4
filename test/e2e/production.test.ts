/**
 * `bin/coregate serve` in production mode (NODE_ENV=production) on the embedded
 * database and the built-in simulator, as an operator who forgot to configure
 * them would run it: no start without COREGATE_ENCRYPTION_KEY, no demo client,
 * and loud warnings about the simulator and the embedded database.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { killAll, runCli, runJson, startServer, startWarnings, tempDataDir } from './support/process.js';

after(killAll);

describe('serve with NODE_ENV=production', () => {
  it('refuses to start without COREGATE_ENCRYPTION_KEY, in one line naming it', async () => {
    const data = tempDataDir();
    try {
      const result = await runCli(['serve'], { NODE_ENV: 'production', COREGATE_DATA_DIR: data.dir, PORT: '0' });
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, /COREGATE_ENCRYPTION_KEY is required with NODE_ENV=production/);
    } finally {
      data.remove();
    }
  });

  it('creates no demo client on a fresh embedded database and warns about the simulator and the embedded database', async () => {
    const data = tempDataDir();
    const env = {
      NODE_ENV: 'production',
      COREGATE_DATA_DIR: data.dir,
      COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    const server = await startServer(env);
    try {
      const expected = [/BUILT-IN CORE SIMULATOR/, /EMBEDDED DATABASE/];
      const warnings = await startWarnings(server, expected);
      for (const pattern of expected)
        assert.ok(
          warnings.some((msg) => pattern.test(msg)),
          warnings.join('\n'),
        );
      assert.deepEqual(await runJson(['clients', 'list', '--json'], env), []);
    } finally {
      await server.stop();
      data.remove();
    }
  });
});
