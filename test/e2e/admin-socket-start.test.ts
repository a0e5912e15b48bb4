/**
 * The admin socket of a real `bin/coregate serve`: with a data dir too deep for a
 * socket path it lives in a private directory the server made (named in the lock
 * file, removed at shutdown), commands reach the server through it; and a start
 * whose admin socket cannot be served stops altogether — no port left answering,
 * the data dir unlocked — instead of half-starting.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lockFilePath } from '../../src/adapters/store/data-dir-lock.js';
import { killAll, runJson, seedDataDir, spawnServer, startServer, tempDataDir } from './support/process.js';

after(killAll);

describe('the admin socket of a running server', { timeout: 240_000 }, () => {
  it('lives in a private directory of its own for a deep data dir, and goes with the server', async (t) => {
    const data = tempDataDir({ empty: true });
    t.after(data.remove);
    const deep = join(data.dir, 'a'.repeat(Math.max(1, 100 - data.dir.length)));
    assert.ok(Buffer.byteLength(deep) >= 89);
    // The run's migrated cluster, as every other data dir starts: a first start's initdb took
    // this test past its server's 60 s to become ready on a loaded one-core host.
    seedDataDir(deep);
    const env = { COREGATE_DATA_DIR: deep };
    const server = await startServer(env);
    t.after(() => server.kill());
    const holder = JSON.parse(readFileSync(lockFilePath(deep), 'utf8')) as { adminSocket: string };
    const dir = dirname(holder.adminSocket);
    assert.doesNotMatch(holder.adminSocket, /coregate-[0-9a-f]{16}\.sock$/);
    const stats = statSync(dir);
    assert.equal(stats.mode & 0o777, 0o700);
    assert.equal(stats.uid, process.getuid!());
    assert.equal(statSync(holder.adminSocket).mode & 0o777, 0o600);

    const created = await runJson<{ client_id: string }>(
      ['clients', 'create', '--name', 'through the socket', '--json'],
      env,
    );
    assert.match(created.client_id, /\S/);
    assert.equal((await server.stop()).code, 0);
    assert.equal(existsSync(dir), false, 'the private directory is removed at shutdown');
    assert.equal(existsSync(lockFilePath(deep)), false);
  });

  it('a start whose admin socket fails stops whole: exit status 1, nothing listening, the data dir released', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    // A directory where the socket should be: the socket cannot be made there.
    mkdirSync(join(data.dir, 'admin.sock'));
    const spawned = spawnServer({ COREGATE_DATA_DIR: data.dir });
    t.after(() => spawned.kill());
    const exit = await spawned.exited;
    assert.equal(exit.code, 1, spawned.stderr());
    const listening = /coregate listening on (http:\/\/\S+)"/.exec(spawned.stderr())?.[1];
    if (listening) await assert.rejects(fetch(`${listening}/healthz`), 'nothing answers on the port it had');
    assert.equal(existsSync(lockFilePath(data.dir)), false, 'the data dir is released');
  });
});
