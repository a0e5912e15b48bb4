/**
 * The batched log destination: info lines wait for a batch, warnings go at once — all of
 * them, including those logged while an earlier write is still in flight.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { batchedDestination, createLogger } from '../../src/adapters/logging/logger.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('batched log destination', () => {
  it('writes warnings logged back to back at once, well before the periodic flush', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coregate-log-'));
    const file = join(dir, 'log');
    const fd = openSync(file, 'w');
    try {
      const destination = batchedDestination(fd);
      const logger = createLogger('info', destination);
      logger.info('listening');
      logger.warn('first warning');
      logger.warn('second warning');
      logger.warn('third warning');
      // The periodic flush comes after a second: everything must be there long before.
      await sleep(250);
      const messages = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      assert.deepEqual(messages, ['listening', 'first warning', 'second warning', 'third warning']);
      destination.end();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds info lines for a batch, then writes them within the flush interval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coregate-log-'));
    const file = join(dir, 'log');
    const fd = openSync(file, 'w');
    try {
      const destination = batchedDestination(fd);
      const logger = createLogger('info', destination);
      logger.info('one request');
      await sleep(100);
      assert.equal(readFileSync(file, 'utf8'), '');
      await sleep(1_200);
      assert.match(readFileSync(file, 'utf8'), /one request/);
      destination.end();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
