/**
 * CPU time and memory of a process from /proc (Linux). CPU time is
 * utime + stime of every thread of the process, in clock ticks. The `tree`
 * functions count a process and its descendants: coregate with
 * COREGATE_WORKERS > 1 is a supervisor and the workers it forks.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond;

/** `getconf CLK_TCK`, 100 on practically every Linux. */
export function clockTicksPerSecond() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export const procAvailable = process.platform === 'linux';

/** The fields of /proc/PID/stat after the command name; `fields[0]` is field 3 of stat(5). */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses: fields count from the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds (user + system) the process has used so far; `undefined` without /proc. */
export function cpuSeconds(pid) {
  if (!procAvailable || pid === undefined) return undefined;
  try {
    const fields = statFields(pid);
    // Fields 14 and 15 of stat(5).
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond();
  } catch {
    return undefined;
  }
}

/** `pid` and every process descended from it (one pass over /proc); `[]` without /proc. */
export function processTree(pid) {
  if (!procAvailable || pid === undefined) return [];
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const parent = Number(statFields(name)[1]);
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [];
  const queue = [pid];
  while (queue.length) {
    const next = queue.shift();
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/**
 * CPU seconds of every process of the tree, by pid: take it before and after a
 * run and give both to `treeCpuDelta`. `undefined` without /proc.
 */
export function treeCpuSnapshot(pid) {
  if (!procAvailable || pid === undefined) return undefined;
  const snapshot = new Map();
  for (const member of processTree(pid)) {
    const seconds = cpuSeconds(member);
    if (seconds !== undefined) snapshot.set(member, seconds);
  }
  return snapshot.size ? snapshot : undefined;
}

/** CPU seconds the tree used between two snapshots (a process born meanwhile counts from zero). */
export function treeCpuDelta(before, after) {
  if (before === undefined || after === undefined) return undefined;
  let total = 0;
  for (const [member, seconds] of after) total += seconds - (before.get(member) ?? 0);
  return total;
}

/** Resident set size in bytes (VmRSS); `undefined` without /proc. */
export function rssBytes(pid) {
  if (!procAvailable || pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Samples the RSS of `pid` and its descendants, summed, every `intervalMs` until
 * stopped; `stop()` returns the largest sum seen. (Pages that a cluster's processes
 * share count once per process, as in `ps`.)
 */
export function sampleRss(pid, intervalMs = 200) {
  // The tree is looked up again now and then: a supervisor's workers may still be starting.
  let members = processTree(pid);
  let samples = 0;
  const sum = () => {
    if ((samples += 1) % 10 === 0) members = processTree(pid);
    let total;
    for (const member of members) {
      const rss = rssBytes(member);
      if (rss !== undefined) total = (total ?? 0) + rss;
    }
    return total;
  };
  let max = sum();
  const timer = setInterval(() => {
    const now = sum();
    if (now !== undefined && (max === undefined || now > max)) max = now;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const now = sum();
      if (now !== undefined && (max === undefined || now > max)) max = now;
      return max;
    },
  };
}

/** CPU seconds the whole machine spent busy so far (all CPUs; idle and iowait excluded). */
export function machineBusySeconds() {
  if (!procAvailable) return undefined;
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    // cpu user nice system idle iowait irq softirq steal guest guest_nice
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return (user + nice + system + irq + softirq + steal) / clockTicksPerSecond();
  } catch {
    return undefined;
  }
}
