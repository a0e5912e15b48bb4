/**
 * An embedded installation uses only what belongs to the user running it (docs/operations.md,
 * "Threat model"): another local user who made the data dir in advance (mode 0777), planted an
 * `encryption.key` or a lock file is refused before coregate reads or writes anything there. And
 * production generates no key: its keys come from configuration alone.
 *
 * The other user is a real one, made here with `useradd` (the tests run as root) and removed at
 * the end; as any other user the test is skipped, since only root can give files away.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { openServices } from '../../src/server/services.js';
import { killAll, runCli, tempDataDir, type Env } from './support/process.js';

after(killAll);

const root = process.getuid?.() === 0;
const skip = root ? false : 'giving files to another user needs root';
const USER = `cgplant${randomBytes(3).toString('hex')}`;
let otherUid = -1;

/** A base64 key as an attacker would plant it. */
const PLANTED_KEY = `${randomBytes(32).toString('base64')}\n`;

describe('data dir, key file and lock file of another user', { skip, timeout: 120_000 }, () => {
  before(() => {
    execFileSync('useradd', ['--no-create-home', '--system', '--shell', '/usr/sbin/nologin', USER]);
    otherUid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim());
  });
  after(() => {
    execFileSync('userdel', [USER]);
  });

  it('a data dir made by another user (0777, key planted) is refused before anything is written', async (t) => {
    const temp = tempDataDir({ empty: true });
    t.after(temp.remove);
    const dataDir = join(temp.dir, 'd');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'encryption.key'), PLANTED_KEY);
    chownSync(join(dataDir, 'encryption.key'), otherUid, otherUid);
    chownSync(dataDir, otherUid, otherUid);
    chmodSync(dataDir, 0o777);

    const result = await runCli(['serve'], { COREGATE_DATA_DIR: dataDir, PORT: '0' });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, new RegExp(`belongs to uid ${otherUid}, not to the user running coregate`));
    // Nothing read, chmodded or written: the dir is as the other user left it.
    assert.deepEqual(readdirSync(dataDir), ['encryption.key']);
    assert.equal(readFileSync(join(dataDir, 'encryption.key'), 'utf8'), PLANTED_KEY);
    assert.equal(statSync(dataDir).mode & 0o777, 0o777);
  });

  it('a key file of another user in this user’s data dir is never loaded, also beside COREGATE_ENCRYPTION_KEY', async (t) => {
    const temp = tempDataDir();
    t.after(temp.remove);
    writeFileSync(join(temp.dir, 'encryption.key'), PLANTED_KEY);
    chownSync(join(temp.dir, 'encryption.key'), otherUid, otherUid);
    const extras: Env[] = [{}, { COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64') }];
    for (const extra of extras) {
      const result = await runCli(['clients', 'list', '--json'], { COREGATE_DATA_DIR: temp.dir, ...extra });
      assert.notEqual(result.code, 0, result.stdout);
      assert.match(result.stderr, /encryption\.key belongs to uid \d+, not to the user running coregate/);
    }
  });

  it('a lock file of another user is refused, not believed', async (t) => {
    const temp = tempDataDir();
    t.after(temp.remove);
    // Names a live process (this one) as a server holding the data dir.
    const lock = join(temp.dir, 'coregate.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, role: 'server', adminSocket: '/tmp/elsewhere.sock' }));
    chownSync(lock, otherUid, otherUid);
    const result = await runCli(['clients', 'list', '--json'], { COREGATE_DATA_DIR: temp.dir });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /coregate\.lock belongs to uid \d+, not to the user running coregate/);
  });
});

describe('production generates no key', { timeout: 120_000 }, () => {
  it('embedded database, NODE_ENV=production and COREGATE_ENCRYPTION_KEY: no encryption.key is read or written', async (t) => {
    const temp = tempDataDir();
    t.after(temp.remove);
    const config = loadConfig({
      NODE_ENV: 'production',
      COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      COREGATE_DATA_DIR: temp.dir,
      LOG_LEVEL: 'silent',
    });
    const services = await openServices(config, 'command');
    await services.close();
    assert.equal(existsSync(join(temp.dir, 'encryption.key')), false);
  });
});
