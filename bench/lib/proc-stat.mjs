/**
 * CPU time and memory of a process from /proc (Linux). CPU time is
 * utime + stime of every thread of the process, in clock ticks.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/** CPU seconds (user + system) the process has used so far; `undefined` without /proc. */
export function cpuSeconds(pid) {
  if (!procAvailable || pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5); fields[0] here is field 3.
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (utime + stime) / clockTicksPerSecond();
  } catch {
    return undefined;
  }
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

/** Samples the RSS of `pid` every `intervalMs` until stopped; `stop()` returns the largest seen. */
export function sampleRss(pid, intervalMs = 200) {
  let max = rssBytes(pid);
  const timer = setInterval(() => {
    const now = rssBytes(pid);
    if (now !== undefined && (max === undefined || now > max)) max = now;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const now = rssBytes(pid);
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
