/** `bin/coregate` on the embedded database with no server running: the CLI opens the data dir itself. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  killAll,
  requestToken,
  runCli,
  runJson,
  startServer,
  tempDataDir,
  type CreatedClient,
} from './support/process.js';

after(killAll);

// `clients create --json` has "institution" (docs/behaviour.md#cli-commands).
const CREATED_KEYS = ['allowed_ips', 'client_id', 'client_secret', 'grants', 'institution', 'platform', 'scopes'];

/** Parses stdout that must hold exactly one JSON document (docs/behaviour.md#cli-output). */
function oneJsonDocument<T>(stdout: string): T {
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `expected one JSON document on stdout, got:\n${stdout}`);
  return JSON.parse(lines[0]!) as T;
}

describe('coregate CLI on the embedded database, no server', { timeout: 360_000 }, () => {
  it('manages clients on a fresh data dir; a rotated secret replaces the old one', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };

    const created = await runCli(['clients', 'create', '--name', 'x', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const client = oneJsonDocument<CreatedClient>(created.stdout);
    assert.deepEqual(Object.keys(client).sort(), CREATED_KEYS);
    assert.match(client.client_id, /^cg_/);
    assert.match(client.client_secret, /^cgs_[A-Za-z0-9_-]{43,}$/);
    assert.equal(client.platform, client.client_id, 'without --platform the client is its own platform');
    assert.deepEqual(client.scopes, ['core/main']);
    assert.deepEqual(client.grants, ['client_credentials']);
    assert.deepEqual(client.allowed_ips, []);
    assert.ok(!created.stderr.includes(client.client_secret), 'the secret goes to stdout only');
    assert.ok(!existsSync(join(data.dir, 'coregate.lock')), 'the command released the data dir');

    const listed = await runCli(['clients', 'list', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const list = oneJsonDocument<Array<Record<string, unknown>>>(listed.stdout);
    assert.deepEqual(
      list.map((c) => c['client_id']),
      [client.client_id],
    );
    for (const entry of list) {
      assert.equal(entry['client_secret'], undefined);
      assert.ok(!JSON.stringify(entry).includes('digest'));
    }

    const shown = await runCli(['clients', 'show', client.client_id, '--json'], env);
    assert.equal(shown.code, 0, shown.stderr);
    const show = oneJsonDocument<Record<string, unknown>>(shown.stdout);
    assert.equal(show['client_id'], client.client_id);
    assert.equal(show['name'], 'x');
    assert.equal(show['enabled'], true);
    assert.equal(show['client_secret'], undefined);

    const disabled = await runJson<Record<string, unknown>>(['clients', 'disable', client.client_id, '--json'], env);
    assert.equal(disabled['client_id'], client.client_id);
    assert.equal(disabled['enabled'], false);
    const enabled = await runJson<Record<string, unknown>>(['clients', 'enable', client.client_id, '--json'], env);
    assert.equal(enabled['enabled'], true);

    const rotatedRun = await runCli(['clients', 'rotate-secret', client.client_id, '--json'], env);
    assert.equal(rotatedRun.code, 0, rotatedRun.stderr);
    const rotated = oneJsonDocument<CreatedClient>(rotatedRun.stdout);
    // The keys of `create`, and until when the previous secret works (at once: no --grace).
    assert.deepEqual(Object.keys(rotated).sort(), [...CREATED_KEYS, 'previous_secret_expires_at'].sort());
    assert.equal(rotated.client_id, client.client_id);
    assert.match(rotated.client_secret, /^cgs_/);
    assert.notEqual(rotated.client_secret, client.client_secret);

    const migrated = await runCli(['migrate', '--json'], env);
    assert.equal(migrated.code, 0, migrated.stderr);
    const report = oneJsonDocument<{ applied: unknown[]; current: number }>(migrated.stdout);
    assert.deepEqual(report.applied, [], 'the first command already migrated the fresh data dir');
    assert.ok(report.current >= 1);

    // The secrets are checked by a real server on the same data dir.
    const server = await startServer(env);
    t.after(() => server.kill());
    const oldSecret = await requestToken(server.url, client);
    assert.equal(oldSecret.body['error'], 'invalid_client');
    const newSecret = await requestToken(server.url, rotated);
    assert.equal(newSecret.status, 200, JSON.stringify(newSecret.body));
    assert.equal(typeof newSecret.body['access_token'], 'string');
    assert.equal((await server.stop()).code, 0);
  });

  it('answers --help with exit 0 and needs no database for it', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: join(data.dir, 'never-created') };
    for (const args of [
      ['--help'],
      ['clients', '--help'],
      ['clients', 'create', '--help'],
      ['keys', '--help'],
      ['migrate', '--help'],
      ['serve', '--help'],
    ]) {
      const result = await runCli(args, env);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stdout, /Usage/, args.join(' '));
    }
    assert.ok(!existsSync(join(data.dir, 'never-created')), '--help opened no data dir');
  });

  it('exits 2 on an unknown command', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const unknown = await runCli(['frobnicate'], { COREGATE_DATA_DIR: data.dir });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
    assert.equal(unknown.stdout, '');
  });

  it('refuses a bad setting with exit 2 and one line naming the variable', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    for (const args of [['clients', 'list', '--json'], ['serve']]) {
      const result = await runCli(args, { COREGATE_DATA_DIR: data.dir, PORT: 'abc' });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, /PORT/);
    }
    const noKey = await runCli(['migrate'], {
      COREGATE_DATA_DIR: data.dir,
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
    });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr.trim(), /^[^\n]*COREGATE_ENCRYPTION_KEY[^\n]*$/);
  });
});
