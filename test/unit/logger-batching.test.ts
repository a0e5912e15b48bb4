/**
 * The batched log destination: info lines wait for a batch, warnings go at once — all of
 * them, including those logged while an earlier write is still in flight.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { pbkdf2 } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import type { Logger } from 'pino';
import { batchedDestination, createLogger } from '../../src/adapters/logging/logger.js';

/**
 * Resolves at the first write of `destination` after which `holds()` is true (at once if it
 * already is); fails after `withinMs`. sonic-boom emits 'write' once bytes reach the file.
 */
function writtenWhen(
  destination: ReturnType<typeof batchedDestination>,
  holds: () => boolean,
  withinMs = 10_000,
): Promise<void> {
  if (holds()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      destination.off('write', check);
      reject(new Error(`not written within ${withinMs} ms`));
    }, withinMs);
    function check() {
      if (!holds()) return;
      clearTimeout(deadline);
      destination.off('write', check);
      resolve();
    }
    destination.on('write', check);
  });
}

/** A logger writing through a batched destination into a temporary file; `read` answers what reached the file. */
async function withLogFile(
  work: (logger: Logger, read: () => string, destination: ReturnType<typeof batchedDestination>) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'coregate-log-'));
  const file = join(dir, 'log');
  const destination = batchedDestination(openSync(file, 'w'));
  try {
    await work(createLogger('info', destination), () => readFileSync(file, 'utf8'), destination);
    destination.end();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('batched log destination', () => {
  it('writes warnings logged back to back at once, well before the periodic flush', () =>
    withLogFile(async (logger, read, destination) => {
      const started = performance.now();
      logger.info('listening');
      logger.warn('first warning');
      logger.warn('second warning');
      logger.warn('third warning');
      await writtenWhen(destination, () => read().includes('third warning'));
      // The periodic flush comes after a second: everything must be there long before.
      assert.ok(performance.now() - started < 1_000, 'written at once, not by the periodic flush');
      const messages = read()
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      assert.deepEqual(messages, ['listening', 'first warning', 'second warning', 'third warning']);
    }));

  it('holds info lines for a batch, then writes them within the flush interval', () =>
    withLogFile(async (logger, read, destination) => {
      const started = performance.now();
      logger.info('one request');
      let wrote = 0;
      destination.once('write', () => (wrote = performance.now() - started));
      await writtenWhen(destination, () => read().includes('one request'));
      // Held for the batch (the flush interval is a second, begun as the destination opened), and
      // written by that flush, not at once.
      assert.ok(wrote > 500, `held for the batch (written after ${Math.round(wrote)} ms)`);
    }));

  it('writes many lines whole and in order, across batches', () =>
    withLogFile(async (logger, read, destination) => {
      for (let n = 0; n < 2_000; n++) logger.info({ n }, 'request completed');
      logger.warn('last');
      await writtenWhen(destination, () => read().includes('"msg":"last"'));
      const lines = read()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { n?: number; msg: string });
      assert.equal(lines.length, 2_001);
      assert.deepEqual(
        lines.slice(0, -1).map((line) => line.n),
        Array.from({ length: 2_000 }, (_, n) => n),
      );
      assert.equal(lines.at(-1)?.msg, 'last');
    }));

  it('writes the lines it holds when the process exits', () => {
    const logger = fileURLToPath(new URL('../../src/adapters/logging/logger.js', import.meta.url));
    const script = `const { createLogger, batchedDestination } = await import(${JSON.stringify(logger)});
      const log = createLogger('info', batchedDestination());
      log.info('held line one'); log.info('held line two');
      process.exit(0);`;
    const { stderr, status } = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(status, 0, stderr);
    assert.deepEqual(
      stderr
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { msg: string }).msg),
      ['held line one', 'held line two'],
    );
  });

  it('writes its held lines at exit into a pipe that is full for a moment (stderr made non-blocking)', () => {
    const logger = fileURLToPath(new URL('../../src/adapters/logging/logger.js', import.meta.url));
    // Using process.stderr makes the pipe non-blocking, for the cluster workers sharing it
    // too; the child then fills it until a write would block, and logs while it is full.
    const script = `const { writeSync } = await import('node:fs');
      const { createLogger, batchedDestination } = await import(${JSON.stringify(logger)});
      process.stderr;
      const log = createLogger('info', batchedDestination());
      const filler = '\\n'.repeat(4096); // empty lines: a partial write still ends at the end of one
      for (;;) {
        try { writeSync(2, filler); } catch (error) { if (error.code === 'EAGAIN') break; throw error; }
      }
      log.info('held line one'); log.info('held line two');
      process.exit(0);`;
    // The reader falls behind for half a second before it reads; the pipeline fails if node does.
    const { stdout, stderr, status } = spawnSync(
      'bash',
      ['-c', 'set -o pipefail; "$NODE" --input-type=module -e "$SCRIPT" 2>&1 >/dev/null | { sleep 0.5; cat; }'],
      {
        env: { ...process.env, NODE: process.execPath, SCRIPT: script },
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    assert.equal(status, 0, stderr || stdout.slice(-2000));
    const lines = stdout.split('\n').filter((line) => line !== '');
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { msg: string }).msg),
      ['held line one', 'held line two'],
    );
  });

  it("has written every held line when flushSync returns, even with libuv's pool busy", () =>
    withLogFile(async (logger, read, destination) => {
      logger.info('held one');
      logger.info('held two');
      // Keep every pool thread busy: an asynchronous write queued now would not run before the read below.
      const busy = Array.from(
        { length: 4 },
        () => new Promise((resolve) => pbkdf2('x', 'y', 300_000, 32, 'sha256', resolve)),
      );
      destination.flushSync();
      const messages = read()
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      await Promise.all(busy);
      assert.deepEqual(messages, ['held one', 'held two']);
    }));
});
