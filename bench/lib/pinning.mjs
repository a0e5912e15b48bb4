/**
 * Which CPU each kind of process runs on. The server under test gets a core of
 * its own; the load generator and the peers the server talks to (the core
 * simulator) share the other one, so that the figures measure one core of
 * server work. Without Linux, `taskset` or a second core nothing is pinned, and
 * the results say so.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

function hasTaskset() {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The CPU plan of this machine: `server` and `load` are CPU lists for `taskset -c`, or `undefined` when not pinned. */
export function cpuPlan() {
  const cpus = availableParallelism();
  if (process.platform !== 'linux') return { pinned: false, reason: 'not Linux', cpus };
  if (cpus < 2) return { pinned: false, reason: 'fewer than 2 CPUs', cpus };
  if (!hasTaskset()) return { pinned: false, reason: 'taskset not found', cpus };
  // With more than two CPUs the load side gets every CPU but the server's.
  const load = cpus === 2 ? '1' : `1-${cpus - 1}`;
  // `all`: a server allowed on every CPU (several workers), beside the load side.
  return { pinned: true, server: '0', load, all: `0-${cpus - 1}`, cpus };
}

/** The command line that runs `command args` on `cpus` (unchanged when `cpus` is undefined). */
export function pinnedCommand(cpus, command, args) {
  return cpus === undefined ? { command, args } : { command: 'taskset', args: ['-c', cpus, command, ...args] };
}
