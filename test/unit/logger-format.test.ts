/** Logs: readable lines at a terminal, JSON otherwise, redacted either way. */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, prettyByDefault } from '../../src/adapters/logging/logger.js';

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('log format', () => {
  it('is JSON unless pretty (a supervisor, a pipe, a file)', () => {
    const out = sink();
    createLogger('info', out.stream as never).info({ clientId: 'cg_1', client_secret: 'cgs_x' }, 'token issued');
    const line = JSON.parse(out.text().trim()) as Record<string, unknown>;
    assert.equal(line['msg'], 'token issued');
    assert.equal(line['client_secret'], '[redacted]');
  });

  it('is readable lines when pretty, still redacted', async () => {
    const out = sink();
    createLogger('info', out.stream as never, { pretty: true }).info(
      { clientId: 'cg_1', client_secret: 'cgs_x' },
      'token issued',
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.match(out.text(), /INFO.*token issued/);
    assert.throws(() => JSON.parse(out.text().trim()));
    assert.doesNotMatch(out.text(), /cgs_x/);
  });

  it('is pretty by default only when stderr is a terminal', () => {
    assert.equal(prettyByDefault({ isTTY: true }), true);
    assert.equal(prettyByDefault({ isTTY: false }), false);
    assert.equal(prettyByDefault({}), false);
  });
});
