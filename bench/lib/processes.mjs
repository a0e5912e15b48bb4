/**
 * Starting and stopping the processes a benchmark measures. Every child gets a
 * process group of its own, so stopping it also stops anything it started;
 * whatever is still running when the suite ends — normally, on an error or on
 * Ctrl-C — is stopped by the registry below.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pinnedCommand } from './pinning.mjs';

const TAIL_LINES = 40;
const running = new Set();
const cleanups = [];

/** Registers what to undo (databases, directories) should the suite be interrupted. */
export function onInterrupt(cleanup) {
  cleanups.push(cleanup);
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

// Last resort: the suite is exiting, synchronously, with children still up.
process.on('exit', () => {
  for (const entry of running) killGroup(entry.child, 'SIGKILL');
});

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\nbench: ${signal}, stopping every process it started…\n`);
    stopAll()
      .then(() => Promise.allSettled(cleanups.map((cleanup) => cleanup())))
      .finally(() => process.exit(130));
  });
}

/** Stops every process still running. */
export async function stopAll() {
  await Promise.all([...running].map((entry) => entry.stop()));
}

/**
 * Starts a long-running process and resolves once it is ready: when a line of its
 * output matches `readyLine` (the match is returned), or when `readyCheck()`
 * resolves truthy, or (with `ipc`) when it sends `{ready: true}`. Rejects, with the last lines of its output, if it exits or is
 * not ready within `timeoutMs`.
 */
export async function startProcess(name, options) {
  const { command, args } = pinnedCommand(options.cpus, options.command, options.args);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const tail = [];
  let exited;
  const exit = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
    child.once('error', (error) => {
      exited = { code: null, signal: null, error };
      resolve(exited);
    });
  });

  let matched;
  const lineWaiters = [];
  const onText = (stream) => {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        if (options.echo) process.stderr.write(`[${name}] ${line}\n`);
        for (const waiter of lineWaiters) waiter(line);
      }
    });
  };
  onText(child.stdout);
  onText(child.stderr);

  let stopping;
  const entry = {
    name,
    child,
    pid: child.pid,
    exit,
    tail: () => tail.join('\n'),
    /** SIGTERM to the group, SIGKILL after `graceMs`; resolves with how it exited. */
    stop: (graceMs = 12_000) =>
      (stopping ??= (async () => {
        if (!exited) {
          killGroup(child, 'SIGTERM');
          const timer = sleep(graceMs, undefined, { ref: false }).then(() => 'timeout');
          if ((await Promise.race([exit, timer])) === 'timeout') {
            killGroup(child, 'SIGKILL');
            await exit;
          }
        }
        running.delete(entry);
        return exited;
      })()),
  };
  running.add(entry);

  const failure = (why) => {
    const error = new Error(`${name} ${why}\n--- last output of ${name} ---\n${entry.tail()}`);
    return error;
  };
  const timeoutMs = options.timeoutMs ?? 30_000;
  try {
    const ready = new Promise((resolve, reject) => {
      if (options.readyLine) {
        lineWaiters.push((line) => {
          const match = options.readyLine.exec(line);
          if (match && !matched) {
            matched = match;
            resolve(match);
          }
        });
      }
      if (options.readyMessage) {
        child.on('message', (message) => {
          if (message?.ready && !matched) {
            matched = true;
            resolve(true);
          }
        });
      }
      if (options.readyCheck) {
        (async () => {
          while (!exited && !matched) {
            try {
              if (await options.readyCheck()) {
                matched = true;
                resolve(true);
                return;
              }
            } catch {
              // not yet
            }
            await sleep(50);
          }
        })().catch(reject);
      }
    });
    const outcome = await Promise.race([
      ready.then((match) => ({ match })),
      exit.then((how) => ({ exited: how })),
      // Not holding the suite open once the race is decided.
      sleep(timeoutMs, undefined, { ref: false }).then(() => ({ timedOut: true })),
    ]);
    if (outcome.exited) throw failure(`exited before it was ready (${outcome.exited.error?.message ?? `code ${outcome.exited.code}, signal ${outcome.exited.signal}`})`);
    if (outcome.timedOut) throw failure(`was not ready within ${timeoutMs} ms`);
    entry.match = outcome.match;
    return entry;
  } catch (error) {
    await entry.stop(2000);
    throw error;
  }
}

/** Runs a command to its end; resolves with its exit code and output. */
export function runCommand(options) {
  const { command, args } = pinnedCommand(options.cpus, options.command, options.args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
