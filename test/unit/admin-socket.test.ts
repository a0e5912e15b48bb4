/**
 * The admin socket's protocol (src/server/admin-socket.ts): a named operation with
 * JSON arguments in, the handler's JSON result out; a use case's refusal comes back
 * as the same AdminOperationFailed the CLI gets when it runs the operation itself.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Server } from 'node:http';
import { BadRequest } from '../../src/domain/errors.js';
import { AdminOperationFailed, type AdminHandlers } from '../../src/server/admin-operations.js';
import { callAdminSocket, serveAdminSocket } from '../../src/server/admin-socket.js';

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
        throw new BadRequest('invalid audit query', [{ path: 'limit', message: 'must be a whole number from 1 to 10000' }]);
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
    await assert.rejects(callAdminSocket(path, 'keys.list', {}), (error: Error) => !(error instanceof AdminOperationFailed) && error.message === 'database unreachable');
    await assert.rejects(callAdminSocket(path, 'nope' as 'ping', {}), /unknown admin operation "nope"/);
  });
});
