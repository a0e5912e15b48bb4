/**
 * The embedded data dir while a server holds it: management commands go through
 * the server's admin socket, a second server is refused, and shutdown hands the
 * data dir back.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { MIGRATIONS } from '../../src/adapters/store/migrations/index.js';
import {
  killAll,
  requestToken,
  runCli,
  runJson,
  spawnServer,
  startServer,
  tempDataDir,
  type CreatedClient,
} from './support/process.js';

after(killAll);

interface Jwks {
  keys: Array<{ kid: string }>;
}

async function jwks(url: string): Promise<Jwks> {
  return (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as Jwks;
}

/** The pid of a process that has exited: a lock file naming it is stale. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

// Four CLI commands on a fresh data dir, two servers and a fresh migration: 232 s pinned to one
// core of a 2-core host loaded by other work (load average ~20); 480 s leaves a host half as
// fast room. Steps have no time limits of their own beyond the CLI's guard against a hang.
describe('coregate CLI while a server holds the embedded database', { timeout: 480_000 }, () => {
  it('forwards commands to the server, refuses a second server, and hands the data dir back on SIGTERM', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };
    const spawned = spawnServer(env);
    t.after(() => spawned.kill());

    // The server takes the data dir first, then migrates the fresh database and creates
    // its signing key, and only then opens its admin socket. A command sent in between
    // waits for the socket: it can neither open the data dir nor fail.
    const lockFile = join(data.dir, 'coregate.lock');
    // Polled until the server has it; the suite's time limit bounds the wait (and stops it).
    while (!existsSync(lockFile)) await sleep(20, undefined, { signal: t.signal });
    const holder = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number; role: string; adminSocket: string };
    assert.equal(holder.pid, spawned.pid);
    assert.equal(holder.role, 'server');
    const created = await runCli(['clients', 'create', '--name', 'through the server', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const client = JSON.parse(created.stdout) as CreatedClient;
    assert.match(client.client_secret, /^cgs_/);
    const server = await spawned.ready();
    assert.ok(existsSync(holder.adminSocket));
    const token = await requestToken(server.url, client);
    assert.equal(token.status, 200, JSON.stringify(token.body));
    const accessToken = String(token.body['access_token']);

    const other = await runJson<CreatedClient>(
      [
        'clients',
        'create',
        '--name',
        'acme app',
        '--platform',
        'acme',
        '--grant',
        'refresh_token',
        '--allow-ip',
        '10.0.0.0/8',
        '--allow-ip',
        '::1',
        '--scope',
        'core/main',
        '--json',
      ],
      env,
    );
    assert.equal(other.platform, 'acme');
    assert.deepEqual([...other.grants].sort(), ['client_credentials', 'refresh_token']);
    assert.deepEqual(other.allowed_ips, ['10.0.0.0/8', '::1/128']);
    const listed = await runJson<Array<{ client_id: string; platform: string }>>(['clients', 'list', '--json'], env);
    // Besides the demo client a fresh embedded installation creates on its first start.
    const ours = listed.filter((c) => c.platform !== 'demo').map((c) => c.client_id);
    assert.deepEqual(ours, [client.client_id, other.client_id]);

    // Failures travel back from the server with their exit status, on stderr only.
    const missing = await runCli(['clients', 'show', 'cg_nobody', '--json'], env);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /cg_nobody/);
    const invalid = await runCli(['clients', 'create', '--name', 'bad', '--allow-ip', '10.0.0.0/33'], env);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /allow-ip/);
    for (const args of [
      ['clients', 'frobnicate'],
      ['clients', 'create', '--json'],
      ['clients', 'list', '--frob'],
    ]) {
      const usage = await runCli(args, env);
      assert.equal(usage.code, 2, `${args.join(' ')}: ${usage.stderr}`);
      assert.equal(usage.stdout, '');
    }

    // A second server on the same data dir must not open it.
    const second = await runCli(['serve'], { ...env, PORT: '0' });
    assert.notEqual(second.code, 0);
    assert.match(second.stderr, /is held by coregate pid \d+: stop it, or use the CLI while it runs/);
    assert.match(second.stderr, new RegExp(String(server.pid)));
    assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, server.pid, 'the lock still names the first server');
    assert.equal((await requestToken(server.url, client)).status, 200, 'the first server keeps working');

    // A key rotation through the server is visible at once in its JWKS.
    const before = await jwks(server.url);
    assert.equal(before.keys.length, 1);
    const rotated = await runJson<{ kid: string; previous_keys_published_until: string }>(
      ['keys', 'rotate', '--json'],
      env,
    );
    const afterRotation = await jwks(server.url);
    assert.deepEqual(afterRotation.keys.map((key) => key.kid).sort(), [before.keys[0]!.kid, rotated.kid].sort());
    assert.ok(Date.parse(rotated.previous_keys_published_until) > Date.now());
    const newToken = await requestToken(server.url, client);
    assert.equal(decodeProtectedHeader(String(newToken.body['access_token'])).kid, rotated.kid);
    // Tokens signed before the rotation still verify against the published keys.
    const remote = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    await jwtVerify(accessToken, remote, { issuer: server.url });
    await jwtVerify(String(newToken.body['access_token']), remote, { issuer: server.url });

    // Disabling through the server stops new tokens at once.
    await runJson(['clients', 'disable', client.client_id, '--json'], env);
    assert.equal((await requestToken(server.url, client)).body['error'], 'invalid_client');

    const exit = await server.stop();
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(!existsSync(lockFile), 'the lock file is removed');
    assert.ok(!existsSync(holder.adminSocket), 'the admin socket is removed');

    // With the server gone the CLI opens the data dir itself and sees the same data.
    const shown = await runJson<{ enabled: boolean }>(['clients', 'show', client.client_id, '--json'], env);
    assert.equal(shown.enabled, false);
  });

  it('takes over a lock file left by a process that died', async (t) => {
    const data = tempDataDir({ empty: true });
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };
    // `migrate` on the fresh data dir creates the schema (copied from the install's template, or
    // initdb and every migration where there is none); then a crash leaves a lock behind.
    // Without a template: over 60 s pinned to one loaded core.
    const migrated = await runJson<{ applied: Array<{ version: number }>; current: number }>(
      ['migrate', '--json'],
      env,
      180_000,
    );
    assert.equal(
      migrated.current,
      Math.max(...MIGRATIONS.map((m) => m.version)),
      'a fresh data dir gets the whole schema',
    );
    const lockFile = join(data.dir, 'coregate.lock');
    const stale = { pid: await deadPid(), role: 'server', adminSocket: join(data.dir, 'admin.sock') };
    writeFileSync(lockFile, JSON.stringify(stale));

    // A command is not fooled into talking to a dead server's socket.
    const created = await runJson<CreatedClient>(['clients', 'create', '--name', 'after a crash', '--json'], env);
    assert.ok(!existsSync(lockFile));

    writeFileSync(lockFile, JSON.stringify(stale));
    const server = await startServer(env);
    t.after(() => server.kill());
    assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, server.pid);
    assert.equal((await requestToken(server.url, created)).status, 200);
    assert.equal((await server.stop()).code, 0);
    assert.ok(!existsSync(lockFile));
  });
});
