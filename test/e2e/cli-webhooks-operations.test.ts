/**
 * `coregate webhooks enable|disable` and the target-policy note, with the real CLI:
 * a command on its own embedded database says that it checked the URL under its own
 * (development) policy and that the server checks again when it sends; through a
 * running server's admin socket the server's policy is the one applied, and no note.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { killAll, runCli, runJson, startServer, tempDataDir } from './support/process.js';

after(killAll);

const NOTE =
  /^note: the URL was checked under this command's policy, development mode .*the server checks every delivery again under its own when it sends/m;

describe('coregate webhooks enable, disable and the policy note', { timeout: 360_000 }, () => {
  it('disables and enables an endpoint, keeping its id; notes the policy only when no server applied it', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };

    const added = await runCli(
      ['webhooks', 'add', '--platform', 'acme', '--url', 'http://127.0.0.1:9/hooks', '--json'],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stderr, NOTE);
    const { id } = JSON.parse(added.stdout) as { id: string };

    const disabled = await runCli(['webhooks', 'disable', id], env);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.match(disabled.stdout, new RegExp(`^disabled webhook endpoint ${id} `));
    let [listed] = await runJson<Array<{ id: string; enabled: boolean; disabledReason: string | null }>>(
      ['webhooks', 'list', '--platform', 'acme', '--json'],
      env,
    );
    assert.deepEqual([listed!.id, listed!.enabled, listed!.disabledReason], [id, false, 'operator']);

    const enabled = await runCli(['webhooks', 'enable', id, '--json'], env);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.deepEqual((JSON.parse(enabled.stdout) as { id: string; enabled: boolean }).enabled, true);
    assert.match(enabled.stderr, NOTE);
    [listed] = await runJson<Array<{ id: string; enabled: boolean; disabledReason: string | null }>>(
      ['webhooks', 'list', '--platform', 'acme', '--json'],
      env,
    );
    assert.deepEqual([listed!.id, listed!.enabled, listed!.disabledReason], [id, true, null]);

    const unknown = await runCli(['webhooks', 'enable', 'wh_nope'], env);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /no webhook endpoint "wh_nope"/);

    const server = await startServer(env);
    t.after(() => server.kill());
    const throughServer = await runCli(
      ['webhooks', 'add', '--platform', 'acme', '--url', 'http://127.0.0.1:9/other', '--json'],
      env,
    );
    assert.equal(throughServer.code, 0, throughServer.stderr);
    assert.doesNotMatch(throughServer.stderr, /^note:/m, 'the server checked it under the policy it sends with');
    assert.equal((await server.stop()).code, 0);
  });
});
