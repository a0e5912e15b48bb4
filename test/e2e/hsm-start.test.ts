/**
 * `bin/coregate serve` with COREGATE_KEY_STORE=pkcs11 on a SoftHSM2 token, as real
 * processes: a missing module, an unknown token and a refused PIN each stop the start
 * with one line naming the setting; a restart unwraps the same encryption key from the
 * token (a client made before it still authenticates after it) and writes no key into
 * the data dir; the PIN is printed nowhere.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { basic } from '../support/harness.js';
import { createSoftHsmToken, softHsmSkip } from '../support/softhsm.js';
import { killAll, runCli, runJson, startServer, tempDataDir } from './support/process.js';

after(killAll);

// SoftHSM2 tokens and server starts: 78 s pinned to one core with another run on the other (two
// runs side by side); 240 s leaves a host half as fast room.
describe('serve with keys on a PKCS#11 token', { skip: softHsmSkip, timeout: 240_000 }, () => {
  it('stops the start with one line naming a missing module, an unknown token or a refused PIN', async (t) => {
    const token = createSoftHsmToken();
    t.after(() => token.close());
    const data = tempDataDir();
    t.after(data.remove);
    const wrongPinFile = join(data.dir, 'wrong-pin');
    writeFileSync(wrongPinFile, 'wrong-pin-4711\n', { mode: 0o600 });
    const cases = [
      {
        env: { COREGATE_PKCS11_LIBRARY: '/nonexistent/libpkcs11.so' },
        line: /COREGATE_PKCS11_LIBRARY cannot be loaded/,
      },
      {
        env: { COREGATE_PKCS11_TOKEN_LABEL: 'no-such-token' },
        line: /COREGATE_PKCS11_TOKEN_LABEL names no token present/,
      },
      {
        env: { COREGATE_PKCS11_PIN_FILE: wrongPinFile },
        line: /COREGATE_PKCS11_PIN_FILE holds a PIN the token refused \(CKR_PIN_INCORRECT\)/,
      },
    ];
    for (const { env, line } of cases) {
      const result = await runCli(['serve'], { ...token.env, COREGATE_DATA_DIR: data.dir, PORT: '0', ...env }, 30_000);
      assert.equal(result.code, 2, result.stderr);
      // Log lines (pino's JSON, the migration of the fresh data dir) aside: one line says why.
      const lines = result.stderr
        .trim()
        .split('\n')
        .filter((text) => !text.startsWith('{'));
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, line);
      for (const pin of [token.pin, 'wrong-pin-4711']) assert.ok(!(result.stdout + result.stderr).includes(pin));
    }
  });

  it('unwraps the same encryption key after a restart and writes none to the data dir', async (t) => {
    const token = createSoftHsmToken();
    t.after(() => token.close());
    const data = tempDataDir();
    t.after(data.remove);
    const env = { ...token.env, COREGATE_DATA_DIR: data.dir, LOG_LEVEL: 'debug' };

    const first = await startServer(env);
    const client = await runJson<{ client_id: string; client_secret: string }>(
      ['clients', 'create', '--name', 'hsm', '--json'],
      env,
    );
    assert.equal((await first.stop()).code, 0);

    const second = await startServer(env);
    t.after(() => second.kill());
    const response = await fetch(`${second.url}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: basic(client.client_id, client.client_secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(existsSync(join(data.dir, 'encryption.key')), false, 'no encryption key file was written');
    assert.equal((await second.stop()).code, 0);
    for (const server of [first, second]) assert.ok(!server.stderr().includes(token.pin), 'the PIN is never logged');
  });
});
