/** One exchange with the core through undici's dispatch handler (`adapters/core/answer-exchange.ts`). */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Pool } from 'undici';
import { AnswerTooLarge, exchange } from '../../src/adapters/core/answer-exchange.js';
import { CallDeadline } from '../../src/adapters/core/call-deadline.js';

describe('exchange', () => {
  let server: Server;
  let origin: string;

  before(async () => {
    server = createServer((request, response) => {
      if (request.url === '/chunks') {
        // Three writes, flushed apart: the answer arrives in several chunks.
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"accounts":[');
        setTimeout(() => response.write('"é",'), 5);
        setTimeout(() => response.end('"ü"]}'), 10);
      } else if (request.url === '/empty') {
        response.writeHead(204).end();
      } else if (request.url === '/big') {
        response.end('x'.repeat(5000));
      }
      // Anything else: never answered.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const call = async (pool: Pool, path: string, maxBytes = 1024, ms = 1000) => {
    const deadline = new CallDeadline(ms);
    try {
      return await exchange(pool, { origin, path, method: 'GET', headers: {} }, { maxBytes, deadline });
    } finally {
      deadline.release();
    }
  };

  it('reads an answer sent in several chunks, characters split across them included', async () => {
    const pool = new Pool(origin);
    try {
      assert.deepEqual(await call(pool, '/chunks'), { status: 200, text: '{"accounts":["é","ü"]}' });
      assert.deepEqual(await call(pool, '/empty'), { status: 204, text: '' });
    } finally {
      await pool.close();
    }
  });

  it('aborts an answer larger than the limit', async () => {
    const pool = new Pool(origin);
    try {
      await assert.rejects(call(pool, '/big', 1024), AnswerTooLarge);
      // The connection pool still serves the next call.
      assert.equal((await call(pool, '/chunks')).status, 200);
    } finally {
      await pool.close();
    }
  });

  it('rejects with the deadline, whether the call is under way or still waits for a connection', async () => {
    const pool = new Pool(origin, { connections: 1 });
    try {
      const hanging = call(pool, '/never', 1024, 100);
      // Queued behind the first on the pool's only connection: never started when its deadline passes.
      const queued = call(pool, '/chunks', 1024, 50);
      await assert.rejects(queued, { name: 'TimeoutError' });
      await assert.rejects(hanging, { name: 'TimeoutError' });
    } finally {
      await pool.destroy();
    }
  });
});
