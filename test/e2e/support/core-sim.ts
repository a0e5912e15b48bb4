/**
 * A real `bin/coregate core-sim --port 0` for end-to-end tests, with its control
 * endpoints (docs/behaviour.md#control-endpoints): stats and injected faults.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, processEnv, ROOT } from './process.js';

export interface CoreSim {
  readonly url: string;
  readonly child: ChildProcess;
  stats(): Promise<{ sessionsStarted: number; accountRequests: number; activeSessions: number }>;
  /** `POST /_sim/faults`; `{}` resets. */
  faults(faults: { latencyMs?: number; errorRate?: number; errorStatus?: number }): Promise<void>;
  stop(): void;
}

/** Starts the simulator and resolves once it announces its URL. */
export async function startCoreSim(args: readonly string[] = []): Promise<CoreSim> {
  const child = spawn(process.execPath, [BIN, 'core-sim', '--port', '0', ...args], {
    cwd: ROOT,
    env: processEnv({}),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Dies with the test file whatever happens.
  process.once('exit', () => child.kill('SIGKILL'));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`core-sim did not listen within 10 s: ${stderr}`)), 10_000);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /core simulator listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`core-sim exited with ${code}: ${stderr}`));
    });
  });
  return {
    url,
    child,
    async stats() {
      return (await (await fetch(`${url}/_sim/stats`)).json()) as Awaited<ReturnType<CoreSim['stats']>>;
    },
    async faults(faults) {
      const response = await fetch(`${url}/_sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(faults),
      });
      assert.equal(response.status, 200, await response.text());
    },
    stop() {
      child.kill('SIGTERM');
    },
  };
}
