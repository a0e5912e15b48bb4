/**
 * A spawned `bin/coregate`: the operator's new commands (clients update/delete,
 * list --platform, rotate-secret --grace, keys revoke), their audit rows, audit list --type/--until,
 * which database a command uses, --version, unknown flags with a suggestion, serve --port/--host,
 * and system errors in one line with the fix.
 */
import assert from 'node:assert/strict';
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

describe('coregate CLI: operator experience', { timeout: 480_000 }, () => {
  it('--version, unknown flags with a suggestion, serve flags, one-line fixes', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };

    const version = await runCli(['--version'], env);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^coregate \d+\.\d+\.\d+/);

    const typo = await runCli(['clients', 'list', '--jsn'], env);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown option --jsn \(did you mean --json\?\)/);
    assert.doesNotMatch(typo.stderr, /positional argument/);

    const serveTypo = await runCli(['serve', '--prot', '9000'], env);
    assert.equal(serveTypo.code, 2);
    assert.match(serveTypo.stderr, /did you mean --port\?/);
    const badPort = await runCli(['serve', '--port', 'ninety'], env);
    assert.equal(badPort.code, 2);
    assert.match(badPort.stderr, /--port must be a whole number/);

    const shortKey = await runCli(['clients', 'list'], { ...env, COREGATE_ENCRYPTION_KEY: 'abc' });
    assert.equal(shortKey.code, 2);
    assert.match(shortKey.stderr, /COREGATE_ENCRYPTION_KEY .*generate one with: openssl rand -base64 32/);

    const refused = await runCli(['clients', 'list'], {
      ...env,
      NODE_ENV: 'production',
      COREGATE_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /DATABASE_URL is required with NODE_ENV=production/);
  });

  it('serve --port is honoured; a port in use and a held data dir are one line with the fix', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const other = tempDataDir();
    t.after(other.remove);
    const running = await startServer({ COREGATE_DATA_DIR: other.dir, PORT: '0' });
    try {
      const port = new URL(running.url).port;
      // --port is honoured (PORT says 0 here): the port it names is the busy one.
      const busy = await runCli(['serve', '--port', port], { COREGATE_DATA_DIR: data.dir, PORT: '0' });
      assert.equal(busy.code, 1, busy.stderr);
      assert.match(busy.stderr, new RegExp(`PORT ${port} is in use: stop the other process or set PORT`));
      const held = await runCli(['serve'], { COREGATE_DATA_DIR: other.dir, PORT: '0' });
      assert.equal(held.code, 2, held.stderr);
      assert.match(
        held.stderr,
        new RegExp(`is held by coregate pid ${running.pid}: stop it, or use the CLI while it runs`),
      );
    } finally {
      await running.stop();
    }
  });

  it('clients update/delete/list --platform, rotate-secret --grace, keys revoke — each audited', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };
    const server = await startServer({ ...env, PORT: '0' });
    t.after(() => server.stop());

    const created = await runCli(['clients', 'create', '--name', 'acme', '--platform', 'acme', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /using the embedded database in .*through the server running on it/);
    const client = JSON.parse(created.stdout) as CreatedClient;
    await runJson(['clients', 'create', '--name', 'other', '--platform', 'other', '--json'], env);

    const listed = await runJson<Array<{ client_id: string }>>(
      ['clients', 'list', '--platform', 'acme', '--json'],
      env,
    );
    assert.deepEqual(
      listed.map((c) => c.client_id),
      [client.client_id],
    );

    const updated = await runJson<{ name: string; allowed_ips: string[] }>(
      ['clients', 'update', client.client_id, '--name', 'Acme Ltd', '--allow-ip', '10.0.0.0/8', '--json'],
      env,
    );
    assert.equal(updated.name, 'Acme Ltd');
    assert.deepEqual(updated.allowed_ips, ['10.0.0.0/8']);
    const cleared = await runJson<{ allowed_ips: string[] }>(
      ['clients', 'update', client.client_id, '--clear-allow-ips', '--json'],
      env,
    );
    assert.deepEqual(cleared.allowed_ips, []);

    const graced = await runCli(['clients', 'rotate-secret', client.client_id, '--grace', '300', '--json'], env);
    assert.equal(graced.code, 0, graced.stderr);
    const second = JSON.parse(graced.stdout) as CreatedClient;
    assert.match(graced.stderr, /previous secret keeps working until/);
    assert.equal((await requestToken(server.url, client)).status, 200, 'the old secret works during the grace period');
    assert.equal((await requestToken(server.url, second)).status, 200, 'the new secret works');
    const third = await runJson<CreatedClient>(['clients', 'rotate-secret', client.client_id, '--json'], env);
    assert.equal((await requestToken(server.url, second)).status, 400, 'without --grace the old secret stops at once');
    assert.equal((await requestToken(server.url, third)).status, 200);

    // keys revoke: the active key is rotated away and its tokens stop verifying at once.
    const token = (await requestToken(server.url, third)).body['access_token'] as string;
    const before = await fetch(`${server.url}/core/accounts?customerId=nobody`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(before.status, 404);
    const jwks = await runJson<{ keys: Array<{ kid: string }> }>(['keys', 'list', '--json'], env);
    const revoked = await runJson<{ kid: string; rotatedTo: string | null }>(
      ['keys', 'revoke', jwks.keys[0]!.kid, '--json'],
      env,
    );
    assert.equal(revoked.kid, jwks.keys[0]!.kid);
    assert.ok(revoked.rotatedTo);
    const afterRevoke = await fetch(`${server.url}/core/accounts?customerId=nobody`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(afterRevoke.status, 401);
    const published = await runJson<{ keys: Array<{ kid: string }> }>(['keys', 'list', '--json'], env);
    assert.ok(!published.keys.some((key) => key.kid === revoked.kid));

    const deleted = await runJson<{ client_id: string; deleted: boolean }>(
      ['clients', 'delete', client.client_id, '--json'],
      env,
    );
    assert.deepEqual(deleted, { client_id: client.client_id, deleted: true });
    assert.equal((await requestToken(server.url, third)).status, 400, 'a deleted client gets no token');

    const operator = await runJson<
      Array<{ type: string; actor: string; clientId: string | null; reason: string | null }>
    >(['audit', 'list', '--platform', 'acme', '--json'], env);
    const mine = operator
      .filter((row) => row.actor === 'operator')
      .map((row) => row.type)
      .reverse();
    assert.deepEqual(mine, [
      'client.created',
      'client.updated',
      'client.updated',
      'client.secret_rotated',
      'client.secret_rotated',
      'client.deleted',
    ]);
    const keyRows = await runJson<Array<{ type: string; reason: string }>>(
      ['audit', 'list', '--type', 'key.revoked', '--json'],
      env,
    );
    assert.deepEqual(
      keyRows.map((row) => row.reason),
      [revoked.kid],
    );
    const none = await runJson<unknown[]>(
      ['audit', 'list', '--type', 'client.created', '--until', '2000-01-01', '--json'],
      env,
    );
    assert.deepEqual(none, []);
    const all = JSON.stringify(await runJson(['audit', 'list', '--limit', '1000', '--json'], env));
    for (const secret of [client.client_secret, second.client_secret, third.client_secret])
      assert.ok(!all.includes(secret), 'never a secret');
  });
});
