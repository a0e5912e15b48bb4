/**
 * The admin socket's protocol (src/server/admin-socket.ts): a named operation with
 * JSON arguments in, the handler's JSON result out; a use case's refusal comes back
 * as the same AdminOperationFailed the CLI gets when it runs the operation itself.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createServer, type Server } from 'node:http';
import { lockFilePath } from '../../src/adapters/store/data-dir-lock.js';
import { invalidRequest } from '../../src/domain/errors.js';
import { AdminOperationFailed, type AdminHandlers } from '../../src/server/admin-operations.js';
import {
  adminSocketPlace,
  AdminSocketRefused,
  callAdminSocket,
  connectToServer,
  serveAdminSocket,
} from '../../src/server/admin-socket.js';

describe('admin socket', () => {
  let dir: string;
  let path: string;
  let server: Server;
  const seen: unknown[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'coregate-admin-socket-'));
    path = join(dir, 'admin.sock');
    const handlers = {
      ping: async () => ({ ok: true }),
      'associations.revoke': async (args: { platform: string; customerId: string }) => {
        seen.push(args);
        return { ...args, revoked: true };
      },
      'audit.list': async () => {
        throw invalidRequest('invalid audit query', {
          problems: [{ path: 'limit', message: 'must be a whole number from 1 to 10000' }],
        });
      },
      'keys.list': async () => {
        throw new Error('database unreachable');
      },
    } as unknown as AdminHandlers;
    server = await serveAdminSocket(path, handlers);
  });

  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a named operation with its JSON arguments and answers its result', async () => {
    const result = await callAdminSocket(path, 'associations.revoke', { platform: 'p1', customerId: 'c1' });
    assert.deepEqual(result, { platform: 'p1', customerId: 'c1', revoked: true });
    assert.deepEqual(seen, [{ platform: 'p1', customerId: 'c1' }]);
  });

  it("returns a use case's refusal with its public message and fields", async () => {
    const error = await callAdminSocket(path, 'audit.list', { limit: 0 }).catch((caught: unknown) => caught);
    assert.ok(error instanceof AdminOperationFailed);
    assert.equal(error.message, 'invalid audit query');
    assert.deepEqual(error.problems, [{ path: 'limit', message: 'must be a whole number from 1 to 10000' }]);
  });

  it('returns an unexpected failure as a plain error, and refuses an unknown operation', async () => {
    await assert.rejects(
      callAdminSocket(path, 'keys.list', {}),
      (error: Error) => !(error instanceof AdminOperationFailed) && error.message === 'database unreachable',
    );
    await assert.rejects(callAdminSocket(path, 'nope' as 'ping', {}), /unknown admin operation "nope"/);
  });
});

describe('where the admin socket lives', () => {
  it('in a private directory of its own (0700, this user) when the data dir is too deep for a socket path', (t) => {
    const root = mkdtempSync(join(tmpdir(), 'coregate-deep-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    // 89 bytes and more: `<dataDir>/admin.sock` no longer fits a socket address.
    const dataDir = join(root, 'd'.repeat(Math.max(1, 120 - root.length)));
    assert.ok(Buffer.byteLength(dataDir) >= 89);
    const place = adminSocketPlace(dataDir);
    const dir = dirname(place.path);
    assert.ok(!dir.startsWith(dataDir));
    assert.notEqual(dir, tmpdir(), 'never a predictable name in the shared temp dir');
    const stats = statSync(dir);
    assert.equal(stats.mode & 0o777, 0o700);
    assert.equal(stats.uid, process.getuid!());
    assert.ok(Buffer.byteLength(place.path) < 100);
    // Another start makes another directory: nothing for another user to take first.
    const second = adminSocketPlace(dataDir);
    assert.notEqual(second.path, place.path);
    place.dispose();
    second.dispose();
    assert.equal(existsSync(dir), false);
  });

  it('in the data dir when that fits', () => {
    const place = adminSocketPlace('/var/lib/coregate');
    assert.equal(place.path, '/var/lib/coregate/admin.sock');
  });
});

describe('the CLI refuses an admin socket it cannot trust', () => {
  /** A socket someone planted, answering everything with a fake secret; records what reached it. */
  async function planted(path: string): Promise<{ server: Server; received: string[] }> {
    const received: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push(body);
        res.end(JSON.stringify({ result: { ok: true, secret: 'fake' } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return { server, received };
  }

  /** A data dir whose lock file names a live server (this test's parent process) and `socket`. */
  function dataDirNaming(root: string, socket: string): string {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(lockFilePath(dataDir), JSON.stringify({ pid: process.ppid, role: 'server', adminSocket: socket }));
    return dataDir;
  }

  it('in a directory other users may enter: one line naming the mode, and nothing sent', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'coregate-planted-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const shared = join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o755);
    const socket = join(shared, 'coregate.sock');
    const fake = await planted(socket);
    t.after(() => fake.server.close());
    const dataDir = dataDirNaming(root, socket);
    const error = await connectToServer(dataDir).catch((caught: unknown) => caught);
    assert.ok(error instanceof AdminSocketRefused);
    assert.match(error.message, /^refusing the admin socket .*: its directory .* has mode 0755, open to other users/);
    assert.equal(error.message.includes('\n'), false);
    assert.deepEqual(fake.received, []);
  });

  it('a socket other users may open, even in a private directory', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'coregate-planted-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const socket = join(root, 'admin.sock');
    const fake = await planted(socket);
    t.after(() => fake.server.close());
    chmodSync(socket, 0o666);
    const error = await connectToServer(dataDirNaming(root, socket)).catch((caught: unknown) => caught);
    assert.ok(error instanceof AdminSocketRefused);
    assert.match(error.message, /: it has mode 0666/);
    assert.deepEqual(fake.received, []);
  });

  it("speaks to the server's own socket (0600 in a 0700 directory)", async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'coregate-own-'));
    chmodSync(root, 0o700);
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const socket = join(root, 'admin.sock');
    const server = await serveAdminSocket(socket, { ping: async () => ({ ok: true }) } as unknown as AdminHandlers);
    t.after(() => server.close());
    assert.equal(statSync(socket).mode & 0o777, 0o600);
    const client = await connectToServer(dataDirNaming(root, socket));
    assert.deepEqual(await client?.call('ping', {}), { ok: true });
  });

  it('the server does not serve a socket in a directory others may enter', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'coregate-open-'));
    chmodSync(root, 0o755);
    t.after(() => rmSync(root, { recursive: true, force: true }));
    await assert.rejects(serveAdminSocket(join(root, 'admin.sock'), {} as AdminHandlers), AdminSocketRefused);
    assert.equal(existsSync(join(root, 'admin.sock')), false);
  });
});
