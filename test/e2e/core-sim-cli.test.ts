/**
 * `coregate core-sim` as a real process (through runCoreSim, which the CLI's
 * main wires), and its usage errors in process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { runCoreSim } from '../../src/cli/core-sim-command.js';
import { bufferedIo } from '../../src/cli/io.js';
import { DEMO_CUSTOMERS } from '../../src/fakes/core-simulator/demo-data.js';

const commandModule = fileURLToPath(new URL('../../src/cli/core-sim-command.js', import.meta.url));
const ioModule = fileURLToPath(new URL('../../src/cli/io.js', import.meta.url));

describe('coregate core-sim', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coregate-core-sim-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs as a process: announces its URL, serves the protocol and /_sim/stats, exits 0 on SIGTERM', async () => {
    const script = `
      const { runCoreSim } = await import(${JSON.stringify(commandModule)});
      const { processIo } = await import(${JSON.stringify(ioModule)});
      process.exitCode = await runCoreSim(process.argv.slice(1), processIo, { apiKey: process.env.COREGATE_CORE_API_KEY });`;
    const child = spawn(
      process.execPath,
      ['-e', `(async () => {${script}})()`, '--', '--port', '0', '--session-ttl', '60'],
      {
        env: { ...process.env, COREGATE_CORE_API_KEY: 'cli-key' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        // Far above the second or so it takes idle: a start on a host half as fast and busy must not fail here.
        const timer = setTimeout(() => reject(new Error(`no listening line in 60 s; stderr: ${stderr}`)), 60_000);
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /core simulator listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        child.on('exit', () => reject(new Error(`exited early; stderr: ${stderr}`)));
      });

      const stats = await fetch(`${url}/_sim/stats`);
      assert.equal(stats.status, 200);
      assert.deepEqual(await stats.json(), { sessionsStarted: 0, accountRequests: 0, activeSessions: 0 });

      const refused = await fetch(`${url}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"customerKey":"C-1001"}',
      });
      assert.equal(refused.status, 403, 'the API key given by the caller is required');
      const started = Date.now();
      const session = await fetch(`${url}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'cli-key' },
        body: JSON.stringify({
          demographics: { socialSecurityNumber: '123456789', accountNumber: '70001234', birthDay: '1980-04-12' },
        }),
      });
      assert.equal(session.status, 201);
      const body = (await session.json()) as { customerKey: string; expiresAt: string };
      assert.equal(body.customerKey, 'C-1001');
      const lifetime = Date.parse(body.expiresAt) - started;
      assert.ok(lifetime > 58_000 && lifetime <= 61_000, `--session-ttl 60 gave ${lifetime} ms`);
      assert.equal(
        ((await (await fetch(`${url}/_sim/stats`)).json()) as { sessionsStarted: number }).sessionsStarted,
        1,
      );

      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.match(stderr, /core simulator stopped \(SIGTERM\)/);
      assert.doesNotMatch(stderr, /cli-key/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serves a data file in process and stops when its signal aborts', async () => {
    const file = join(dir, 'customers.json');
    writeFileSync(file, JSON.stringify({ customers: [{ ...DEMO_CUSTOMERS[1], customerKey: 'C-9', accounts: [] }] }));
    const io = bufferedIo();
    const stop = new AbortController();
    let url = '';
    const running = runCoreSim(['--port', '0', '--data', file], io, {
      signal: stop.signal,
      onListening: (at) => (url = at),
    });
    while (!url) await new Promise((resolve) => setTimeout(resolve, 10));
    const session = await fetch(`${url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"customerKey":"C-9"}',
    });
    assert.equal(session.status, 201);
    const demo = await fetch(`${url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"customerKey":"C-1001"}',
    });
    assert.equal(demo.status, 404, 'only the file is served');
    stop.abort();
    assert.equal(await running, 0);
    assert.match(io.stderr, /core simulator serving 1 customers from .*customers\.json; sessions last 900 s/);
  });

  it('prints help, and refuses bad flags and bad data with exit status 2', async () => {
    const help = bufferedIo();
    assert.equal(await runCoreSim(['--help'], help), 0);
    assert.match(
      help.stdout,
      /Usage: coregate core-sim \[--port 8090\] \[--host 127\.0\.0\.1\] \[--data FILE\] \[--session-ttl SECONDS\]/,
    );

    for (const [args, message] of [
      [['--port', 'eighty'], /--port must be a whole number from 0 to 65535, got "eighty"/],
      [['--port', '70000'], /--port must be a whole number/],
      [['--session-ttl', '0'], /--session-ttl must be a whole number from 1/],
      [['--verbose'], /^coregate: unknown option --verbose; see coregate core-sim --help\n$/],
    ] as const) {
      const io = bufferedIo();
      assert.equal(await runCoreSim([...args], io), 2);
      assert.match(io.stderr, message);
    }

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ customers: [{ ...DEMO_CUSTOMERS[0], birthDay: '12/04/1980' }] }));
    const io = bufferedIo();
    assert.equal(await runCoreSim(['--data', bad], io), 2);
    assert.match(
      io.stderr,
      /1 problem in .*bad\.json:\n {2}customers\[0\]\.birthDay: expected a real date as YYYY-MM-DD/,
    );
  });
});
