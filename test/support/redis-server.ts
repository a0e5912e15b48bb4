/**
 * A redis-server of the test's own, on a free port, that the test may pause
 * (SIGSTOP: connections stay open, nothing answers — a hung Redis) and resume.
 * Never the shared Redis of the machine.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

export function redisServerSkip(): string | false {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'redis-server is not installed';
  }
}

export class OwnRedisServer {
  private process: ChildProcess | undefined;
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.port = await freePort();
    this.process = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { cwd: tmpdir(), stdio: 'ignore' },
    );
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      for (const deadline = Date.now() + 5000; ;) {
        try {
          await probe.connect();
          await probe.ping();
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          probe.disconnect();
          await sleep(50);
        }
      }
    } finally {
      probe.disconnect();
    }
  }

  pause(): void {
    this.process?.kill('SIGSTOP');
  }

  resume(): void {
    this.process?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    if (!this.process) return;
    this.process.kill('SIGCONT');
    this.process.kill('SIGKILL');
    this.process = undefined;
  }
}
