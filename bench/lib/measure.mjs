/**
 * One measurement: a warm-up, then the measured run, with the CPU time of the
 * server under test (and of the processes on the load CPU) read from /proc
 * before and after, and its RSS sampled during the run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSeconds, machineBusySeconds, sampleRss } from './proc-stat.mjs';

const delta = (before, after) => (before === undefined || after === undefined ? undefined : after - before);

/**
 * `server` is `{pid}`; `peers` the other processes whose CPU share is reported
 * (the load generator, the simulator); `spec` what the load generator sends.
 */
export async function measure(ctx, options) {
  let best;
  for (let attempt = 1; ; attempt += 1) {
    const measurement = await measureOnce(ctx, options);
    measurement.attempts = attempt;
    if (!best || (measurement.otherCpuShare ?? 0) < (best.otherCpuShare ?? 0)) best = { ...measurement };
    best.attempts = attempt;
    if (!isDisturbed(measurement) || attempt > (ctx.retriesWhenDisturbed ?? 0)) return best;
    ctx.log(`other processes used ${Math.round(measurement.otherCpuShare * 100)}% of a CPU during the measurement: measuring again`);
  }
}

/** Other processes (PostgreSQL included: it normally uses 20–45% here) used this much of a CPU: the figure is not to be trusted. */
export const DISTURBED_OTHER_CPU_SHARE = 0.6;

export function isDisturbed(measurement) {
  return measurement.otherCpuShare !== undefined && measurement.otherCpuShare >= DISTURBED_OTHER_CPU_SHARE;
}

async function measureOnce(ctx, { server, peers = [], spec }) {
  await waitForQuiet(ctx);
  const warmup = await ctx.load.load({ ...spec, seconds: ctx.durations.warmup });
  const loadSide = [{ name: 'load generator', pid: ctx.load.pid }, ...peers];
  const cpuBefore = cpuSeconds(server.pid);
  const peersBefore = loadSide.map((peer) => cpuSeconds(peer.pid));
  const rss = sampleRss(server.pid);
  const machineBefore = machineBusySeconds();
  const started = process.hrtime.bigint();
  const run = await ctx.load.load({ ...spec, seconds: ctx.durations.measured });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const machineBusy = delta(machineBefore, machineBusySeconds());
  const rssMax = rss.stop();
  const serverCpu = delta(cpuBefore, cpuSeconds(server.pid));
  const peerCpu = loadSide.map((peer, index) => ({ name: peer.name, seconds: delta(peersBefore[index], cpuSeconds(peer.pid)) }));
  const loadCpu = peerCpu.every((peer) => peer.seconds !== undefined) ? peerCpu.reduce((sum, peer) => sum + peer.seconds, 0) : undefined;
  return {
    requestsPerSecond: run.requestsPerSecond,
    responses: run.responses,
    seconds: run.seconds,
    latencyMs: run.latencyMs,
    cpuMicrosPerRequest: serverCpu === undefined || run.responses === 0 ? undefined : (serverCpu * 1e6) / run.responses,
    /** Share of one CPU the server used during the measured run. */
    serverCpuShare: serverCpu === undefined ? undefined : serverCpu / elapsed,
    /** CPUs used on the load side (load generator + peers), per second. */
    loadSideCpuShare: loadCpu === undefined ? undefined : loadCpu / elapsed,
    /** CPUs used by every other process on the machine (PostgreSQL included), per second. */
    otherCpuShare: machineBusy === undefined || serverCpu === undefined || loadCpu === undefined ? undefined : Math.max(0, machineBusy - serverCpu - loadCpu) / elapsed,
    peerCpu: peerCpu.map((peer) => ({ name: peer.name, share: peer.seconds === undefined ? undefined : peer.seconds / elapsed })),
    rssBytes: rssMax,
    statusCodes: run.statusCodes,
    non2xx: run.non2xx + warmup.non2xx,
    errors: run.errors + run.timeouts + warmup.errors + warmup.timeouts,
    warmup: { requestsPerSecond: warmup.requestsPerSecond, non2xx: warmup.non2xx, errors: warmup.errors + warmup.timeouts, statusCodes: warmup.statusCodes },
  };
}

/**
 * Waits, up to `ctx.quietWaitMs`, until the machine is nearly idle (less than a
 * fifth of a CPU busy over half a second), so that other work on a shared
 * machine disturbs the figures as little as possible. Says so when it gives up.
 */
export async function waitForQuiet(ctx) {
  if (!ctx.quietWaitMs) return;
  const deadline = Date.now() + (ctx.quietWaitMs ?? 0);
  for (;;) {
    const before = machineBusySeconds();
    if (before === undefined) return;
    await sleep(500);
    const busy = (machineBusySeconds() - before) / 0.5;
    if (busy < 0.2) return;
    if (Date.now() >= deadline) {
      ctx.log(`the machine is busy (${busy.toFixed(2)} CPUs used by other processes); measuring anyway`);
      return;
    }
  }
}
