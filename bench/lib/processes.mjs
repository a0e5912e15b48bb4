/**
 * Starting and stopping the processes a benchmark measures. Every child gets a
 * process group of its own, so stopping it also stops anything it started;
 * whatever is still running when the suite ends — normally, on an error or on
 * Ctrl-C — is stopped by the registry below.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
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

/** The last `TAIL_LINES` lines of a file (its last 64 KiB at most): what a log file says when its process failed. */
function fileTail(file) {
  let fd;
  try {
    fd = openSync(file, 'r');
    const size = statSync(file).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8').split('\n').filter(Boolean).slice(-TAIL_LINES);
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Calls `onLine` for every line appended to `file`, polling; returns a function that stops it. */
function followFile(file, onLine) {
  let offset = 0;
  let partial = '';
  const timer = setInterval(() => {
    let fd;
    try {
      fd = openSync(file, 'r');
      const size = statSync(file).size;
      if (size <= offset) return;
      const buffer = Buffer.alloc(size - offset);
      readSync(fd, buffer, 0, buffer.length, offset);
      offset = size;
      const lines = (partial + buffer.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    } catch {
      // not written yet
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }, 50);
  return () => clearInterval(timer);
}

/**
 * Starts a long-running process and resolves once it is ready: when a line of its
 * output matches `readyLine` (the match is returned), or when `readyCheck()`
 * resolves truthy, or (with `ipc`) when it sends `{ready: true}`. Rejects, with the last lines of its output, if it exits or is
 * not ready within `timeoutMs`.
 *
 * With `logFile`, the process writes its stdout and stderr straight into that file
 * instead of a pipe to the suite. A server logging every request at the default
 * level writes megabytes a second: through a pipe the suite has to read them all
 * (on whichever CPU it gets, beside the server under test), and a pipe nobody
 * reads fills up, after which pino (asynchronous, unbounded buffer) keeps every
 * further line in memory — measured: coregate's RSS grew by the log's size,
 * about 0.45 KB a request. A file costs the server one write per batch, as a log
 * collector's pipe would, and nobody else any CPU. The file is deleted when the
 * process is stopped; its last lines are kept for the error message should the
 * process fail.
 */
export async function startProcess(name, options) {
  const { command, args } = pinnedCommand(options.cpus, options.command, options.args);
  const logFd = options.logFile ? openSync(options.logFile, 'w') : undefined;
  const output = logFd ?? 'pipe';
  let child;
  try {
    child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: options.ipc ? ['ignore', output, output, 'ipc'] : ['ignore', output, output],
    });
  } finally {
    // The child has its own copy of the descriptor.
    if (logFd !== undefined) closeSync(logFd);
  }
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
  let unfollow = () => {};
  if (options.logFile) {
    // Only while starting (a ready line, an echo); afterwards the file is read only for an error message.
    if (options.readyLine || options.echo)
      unfollow = followFile(options.logFile, (line) => {
        if (options.echo) process.stderr.write(`[${name}] ${line}\n`);
        for (const waiter of lineWaiters) waiter(line);
      });
  } else {
    onText(child.stdout);
    onText(child.stderr);
  }
  const lastLines = () => (options.logFile ? fileTail(options.logFile) : tail);
  let savedTail;

  let stopping;
  const entry = {
    name,
    child,
    pid: child.pid,
    exit,
    tail: () => (savedTail ?? lastLines()).join('\n'),
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
        unfollow();
        if (options.logFile) {
          savedTail = lastLines();
          rmSync(options.logFile, { force: true });
        }
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
    if (outcome.exited)
      throw failure(
        `exited before it was ready (${outcome.exited.error?.message ?? `code ${outcome.exited.code}, signal ${outcome.exited.signal}`})`,
      );
    if (outcome.timedOut) throw failure(`was not ready within ${timeoutMs} ms`);
    entry.match = outcome.match;
    unfollow();
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
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
