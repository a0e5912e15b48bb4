/**
 * The data-dir lock under a real race: processes taking the same data dir at the
 * same instant (a supervisor starting several, or restarts after a crash). Exactly
 * one may hold it; two holders would open one PGlite database twice and corrupt it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { killAll, ROOT, tempDataDir } from './support/process.js';

after(killAll);

const LOCK_MODULE = pathToFileURL(join(ROOT, 'dist', 'src', 'adapters', 'store', 'data-dir-lock.js')).href;

/**
 * A contender: says "ready", waits for "go <epoch ms>", spins until that instant,
 * tries the lock, reports, and holds what it got until its stdin closes.
 */
const CONTENDER = `
import { acquireDataDirLock } from ${JSON.stringify(LOCK_MODULE)};
const dir = process.argv[1];
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
  const match = /go (\\d+)\\n/.exec(input);
  if (!match) return;
  input = '';
  const at = Number(match[1]);
  while (Date.now() < at) {}
  let lock;
  try {
    lock = acquireDataDirLock(dir, { role: 'command' });
    process.stdout.write('acquired\\n');
  } catch (error) {
    process.stdout.write((error.constructor.name === 'DataDirBusy' ? 'busy' : 'error ' + error.message) + '\\n');
  }
  process.stdin.on('end', () => lock?.release());
});
process.stdout.write('ready\\n');
`;

interface Contender {
  readonly child: ChildProcess;
  readonly lines: string[];
  next(): Promise<string>;
}

function contender(dir: string): Contender {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CONTENDER, dir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      waiting.shift()?.(line);
    }
  });
  let read = 0;
  return {
    child,
    lines,
    next: () =>
      read < lines.length
        ? Promise.resolve(lines[read++]!)
        : new Promise((resolve) => waiting.push((line) => (read++, resolve(line)))),
  };
}

async function race(dir: string, contenders = 8): Promise<string[]> {
  const all = Array.from({ length: contenders }, () => contender(dir));
  try {
    for (const c of all) assert.equal(await c.next(), 'ready');
    const at = Date.now() + 150;
    for (const c of all) c.child.stdin!.write(`go ${at}\n`);
    // Everyone reports while the winner still holds the lock: no one can win after a release.
    return await Promise.all(all.map((c) => c.next()));
  } finally {
    for (const c of all) c.child.stdin!.end();
    await Promise.all(
      all.map(
        (c) => new Promise((resolve) => (c.child.exitCode !== null ? resolve(null) : c.child.once('exit', resolve))),
      ),
    );
  }
}

describe('data-dir lock, contended by real processes', { timeout: 120_000 }, () => {
  it('lets exactly one of several processes starting at the same instant take a fresh data dir', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    for (let round = 0; round < 3; round += 1) {
      const outcomes = await race(data.dir);
      assert.equal(outcomes.filter((o) => o === 'acquired').length, 1, outcomes.join(', '));
      assert.ok(
        outcomes.every((o) => o === 'acquired' || o === 'busy'),
        outcomes.join(', '),
      );
    }
  });

  it('lets exactly one of them take over a lock left by a dead process', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => dead.once('exit', resolve));
    for (let round = 0; round < 3; round += 1) {
      writeFileSync(join(data.dir, 'coregate.lock'), JSON.stringify({ pid: dead.pid, role: 'server' }));
      const outcomes = await race(data.dir);
      assert.equal(outcomes.filter((o) => o === 'acquired').length, 1, outcomes.join(', '));
      assert.ok(
        outcomes.every((o) => o === 'acquired' || o === 'busy'),
        outcomes.join(', '),
      );
    }
  });
});
