/**
 * One measurement: a warm-up, then the measured run, with the CPU time of the
 * server under test (its whole process tree: a supervisor and its workers) and
 * of the processes on the load CPU read from /proc before and after, and its RSS
 * sampled during the run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSeconds, machineBusySeconds, sampleRss, treeCpuDelta, treeCpuSnapshot } from './proc-stat.mjs';

const delta = (before, after) => (before === undefined || after === undefined ? undefined : after - before);

/**
 * `server` is `{pid}`; `peers` the other processes whose CPU share is reported
 * (the load generator, the simulator); `spec` what the load generator sends
 * (with `rate`: paced, open loop); `database` the URL of the server's
 * PostgreSQL database, to count what it costs there (see `databaseSnapshot`).
 */
export async function measure(ctx, options) {
  let best;
  for (let attempt = 1; ; attempt += 1) {
    const started = Date.now();
    const measurement = await measureOnce(ctx, options);
    measurement.attempts = attempt;
    if (!best || (measurement.otherCpuShare ?? 0) < (best.otherCpuShare ?? 0)) best = { ...measurement };
    best.attempts = attempt;
    if (attempt > 1) spendPatience(ctx, Date.now() - started);
    if (!isDisturbed(measurement) || attempt > (ctx.retriesWhenDisturbed ?? 0) || !hasPatience(ctx)) return best;
    ctx.log(
      `other processes used ${Math.round(measurement.otherCpuShare * 100)}% of a CPU during the measurement: measuring again`,
    );
  }
}

/**
 * Waiting for a quiet machine and measuring again draw on one budget for the
 * whole run (`ctx.patienceMs`), so that a machine that stays busy makes a run
 * longer by that much at most, not by a multiple of its length.
 */
function hasPatience(ctx) {
  return ctx.patienceMs === undefined || ctx.patienceMs > 0;
}

function spendPatience(ctx, ms) {
  if (ctx.patienceMs === undefined || ctx.patienceMs <= 0) return;
  ctx.patienceMs -= ms;
  if (ctx.patienceMs <= 0)
    ctx.log(
      'the machine stayed busy: the run waits and measures again no more (figures disturbed meanwhile are marked)',
    );
}

/** Other processes (PostgreSQL included: it normally uses 20–45% here) used this much of a CPU: the figure is not to be trusted. */
export const DISTURBED_OTHER_CPU_SHARE = 0.6;

export function isDisturbed(measurement) {
  return measurement.otherCpuShare !== undefined && measurement.otherCpuShare >= DISTURBED_OTHER_CPU_SHARE;
}

/** PostgreSQL's statistics reach pg_stat_database at most once a second per backend. */
const STATS_FLUSH_MS = 1100;

/**
 * What coregate's database has done so far: CPU seconds of each server process
 * (backend) connected to it, by pid, and its transactions (committed and rolled
 * back; every statement outside a transaction is one). `undefined` when the
 * statistics cannot be read.
 */
export async function databaseSnapshot(ctx, url) {
  try {
    const { rows } = await ctx.pg.with(url, (client) =>
      client.query(
        `select (select coalesce(array_agg(pid), '{}') from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()) as pids,
                (select xact_commit + xact_rollback from pg_stat_database where datname = current_database()) as transactions`,
      ),
    );
    const cpu = new Map();
    for (const pid of rows[0].pids) {
      const seconds = cpuSeconds(pid);
      if (seconds !== undefined) cpu.set(pid, seconds);
    }
    return { cpu, transactions: Number(rows[0].transactions) };
  } catch {
    return undefined;
  }
}

export function databaseCost(before, after, responses, { countTransactions }) {
  if (!before || !after || responses === 0) return undefined;
  let cpu = 0;
  // Backends that closed meanwhile are lost; new ones count from zero.
  for (const [pid, seconds] of after.cpu) cpu += seconds - (before.cpu.get(pid) ?? 0);
  return {
    connections: after.cpu.size,
    cpuMicrosPerRequest: (cpu * 1e6) / responses,
    // The suite's own two reads add one transaction each: negligible beside thousands of requests.
    transactionsPerRequest: countTransactions
      ? Math.max(0, after.transactions - before.transactions - 1) / responses
      : undefined,
  };
}

async function measureOnce(ctx, options) {
  await waitForQuiet(ctx);
  const warmup = await ctx.load.load({ ...options.spec, seconds: ctx.durations.warmup });
  const measured = await measuredRun(ctx, options, ctx.durations.measured);
  return {
    ...measured,
    non2xx: measured.non2xx + warmup.non2xx,
    errors: measured.errors + warmup.errors + warmup.timeouts,
    warmup: {
      requestsPerSecond: warmup.requestsPerSecond,
      non2xx: warmup.non2xx,
      errors: warmup.errors + warmup.timeouts,
      statusCodes: warmup.statusCodes,
    },
  };
}

/** One run of `seconds` after the warm-up, with what the server and the others spent meanwhile. */
async function measuredRun(ctx, { server, peers = [], spec, database }, seconds) {
  // Transactions are counted in full runs only: a smoke run's second is too short beside PostgreSQL's
  // one-second publication, and waiting for it would double the run.
  const countTransactions = !ctx.quick;
  let databaseBefore;
  if (database) {
    // So that the warm-up's transactions are counted before the measured run starts.
    if (countTransactions) await sleep(STATS_FLUSH_MS);
    databaseBefore = await databaseSnapshot(ctx, database);
  }
  // The load generator's own signing stays out of the window (`load-worker.mjs`).
  if (spec.dpop) await ctx.load.prepare({ ...spec, seconds });
  const loadSide = [{ name: 'load generator', pid: ctx.load.pid }, ...peers];
  const loopBefore = await server.eventLoop?.();
  const cpuBefore = treeCpuSnapshot(server.pid);
  const peersBefore = loadSide.map((peer) => cpuSeconds(peer.pid));
  const rss = sampleRss(server.pid);
  const machineBefore = machineBusySeconds();
  const started = process.hrtime.bigint();
  const run = await ctx.load.load({ ...spec, seconds });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const machineBusy = delta(machineBefore, machineBusySeconds());
  const rssMax = rss.stop();
  const serverCpu = treeCpuDelta(cpuBefore, treeCpuSnapshot(server.pid));
  const eventLoop = loopDelta(loopBefore, await server.eventLoop?.());
  const peerCpu = loadSide.map((peer, index) => ({
    name: peer.name,
    seconds: delta(peersBefore[index], cpuSeconds(peer.pid)),
  }));
  let databaseAfter;
  if (database) {
    if (countTransactions) await sleep(STATS_FLUSH_MS);
    databaseAfter = await databaseSnapshot(ctx, database);
  }
  const loadCpu = peerCpu.every((peer) => peer.seconds !== undefined)
    ? peerCpu.reduce((sum, peer) => sum + peer.seconds, 0)
    : undefined;
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
    otherCpuShare:
      machineBusy === undefined || serverCpu === undefined || loadCpu === undefined
        ? undefined
        : Math.max(0, machineBusy - serverCpu - loadCpu) / elapsed,
    peerCpu: peerCpu.map((peer) => ({
      name: peer.name,
      share: peer.seconds === undefined ? undefined : peer.seconds / elapsed,
    })),
    rssBytes: rssMax,
    ...(eventLoop ? { eventLoop } : {}),
    database: databaseCost(databaseBefore, databaseAfter, run.responses, { countTransactions }),
    /** Paced runs: the rate asked for, and how late the load generator's own timer was. */
    ...(spec.rate ? { targetRate: spec.rate, schedulerLagMs: run.schedulerLagMs, unanswered: run.unanswered } : {}),
    statusCodes: run.statusCodes,
    non2xx: run.non2xx,
    errors: run.errors + run.timeouts,
    ...(run.dpopSignedDuringLoad ? { dpopSignedDuringLoad: run.dpopSignedDuringLoad } : {}),
    ...(run.dpopMissing ? { dpopMissing: run.dpopMissing } : {}),
    /** The raw sums, so that rounds can be added up (`measurePair`). */
    totals: { elapsed, serverCpu, loadCpu, machineBusy },
    ...(run.accumulatedLatencyMs ? { accumulatedLatencyMs: run.accumulatedLatencyMs } : {}),
  };
}

/**
 * What the server's event loop did between two reads of its loop probe (`loop-probe.mjs`):
 * busy and idle ms, and the busy share (`utilisation`).
 */
function loopDelta(before, after) {
  if (!before || !after) return undefined;
  const busyMs = after.active - before.active;
  const idleMs = after.idle - before.idle;
  return { busyMs, idleMs, utilisation: busyMs + idleMs > 0 ? busyMs / (busyMs + idleMs) : undefined };
}

let pairs = 0;

/**
 * A subject and its baseline measured in alternating rounds, both running all along:
 * each is warmed up, then `ctx.durations.rounds` rounds of `measured / rounds` seconds
 * each, in the order baseline-subject, subject-baseline, … On a shared machine
 * (a VM whose neighbours come and go) the speed of the CPU drifts by tens of percent
 * within minutes; two figures measured minutes apart compare the moments as much as
 * the servers, while rounds taken turn about see the same drift. Each side's rounds
 * add up to one measurement (requests and CPU summed, latency percentiles over all
 * its requests); `roundRatios` are the subject's req/s over the baseline's, round by round.
 */
export async function measurePair(ctx, { subject, baseline }) {
  if (subject.database || baseline.database) throw new Error('measurePair does not count database work');
  const rounds = ctx.durations.rounds ?? 1;
  const seconds = ctx.durations.measured / rounds;
  const key = `pair-${++pairs}`;
  const sides = { baseline, subject };
  const warmups = {};
  for (const [side, options] of Object.entries(sides)) {
    await waitForQuiet(ctx);
    warmups[side] = await ctx.load.load({ ...options.spec, seconds: ctx.durations.warmup });
  }
  const runs = { baseline: [], subject: [] };
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? ['baseline', 'subject'] : ['subject', 'baseline'];
    for (const side of order) {
      const options = sides[side];
      runs[side].push(
        await measuredRun(ctx, { ...options, spec: { ...options.spec, accumulate: `${key}-${side}` } }, seconds),
      );
    }
  }
  const combined = (side) => ({ ...addRounds(runs[side], warmups[side]), rounds });
  return {
    subject: combined('subject'),
    baseline: combined('baseline'),
    roundRatios: runs.subject.map((run, index) => run.requestsPerSecond / runs.baseline[index].requestsPerSecond),
  };
}

/** What a row of a pair says of its rounds. */
export function roundsNote(pair) {
  const ratios = pair.roundRatios.map((ratio) => `${ratio.toFixed(2)}×`).join(', ');
  return `measured in ${pair.roundRatios.length} rounds taken in turn with its baseline; req/s ratio by round: ${ratios}`;
}

/** The rounds of one side as one measurement (see `measurePair`). */
function addRounds(rounds, warmup) {
  const sum = (pick) =>
    rounds.reduce(
      (total, round) => (total === undefined || pick(round) === undefined ? undefined : total + pick(round)),
      0,
    );
  const responses = sum((round) => round.responses);
  const seconds = sum((round) => round.seconds);
  const elapsed = sum((round) => round.totals.elapsed);
  const serverCpu = sum((round) => round.totals.serverCpu);
  const loadCpu = sum((round) => round.totals.loadCpu);
  const machineBusy = sum((round) => round.totals.machineBusy);
  const statusCodes = {};
  for (const round of rounds)
    for (const [code, count] of Object.entries(round.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const last = rounds.at(-1);
  const loops = rounds.map((round) => round.eventLoop);
  const eventLoop = loops.includes(undefined)
    ? undefined
    : loopDelta(
        { active: 0, idle: 0 },
        {
          active: loops.reduce((total, loop) => total + loop.busyMs, 0),
          idle: loops.reduce((total, loop) => total + loop.idleMs, 0),
        },
      );
  return {
    requestsPerSecond: responses / seconds,
    responses,
    seconds,
    latencyMs: last.accumulatedLatencyMs ?? last.latencyMs,
    cpuMicrosPerRequest: serverCpu === undefined || responses === 0 ? undefined : (serverCpu * 1e6) / responses,
    serverCpuShare: serverCpu === undefined ? undefined : serverCpu / elapsed,
    loadSideCpuShare: loadCpu === undefined ? undefined : loadCpu / elapsed,
    otherCpuShare:
      machineBusy === undefined || serverCpu === undefined || loadCpu === undefined
        ? undefined
        : Math.max(0, machineBusy - serverCpu - loadCpu) / elapsed,
    peerCpu: last.peerCpu.map((peer, index) => {
      const shares = rounds.map((round) => round.peerCpu[index].share);
      return {
        name: peer.name,
        share: shares.includes(undefined) ? undefined : shares.reduce((a, b) => a + b, 0) / shares.length,
      };
    }),
    rssBytes: Math.max(...rounds.map((round) => round.rssBytes ?? 0)) || undefined,
    ...(eventLoop ? { eventLoop } : {}),
    database: undefined,
    statusCodes,
    non2xx: sum((round) => round.non2xx) + warmup.non2xx,
    errors: sum((round) => round.errors) + warmup.errors + warmup.timeouts,
    dpopSignedDuringLoad: rounds.reduce((total, round) => total + (round.dpopSignedDuringLoad ?? 0), 0) || undefined,
    dpopMissing:
      rounds.reduce((total, round) => total + (round.dpopMissing ?? 0), 0) + (warmup.dpopMissing ?? 0) || undefined,
    warmup: {
      requestsPerSecond: warmup.requestsPerSecond,
      non2xx: warmup.non2xx,
      errors: warmup.errors + warmup.timeouts,
      statusCodes: warmup.statusCodes,
    },
    attempts: 1,
  };
}

/**
 * Waits, up to `ctx.quietWaitMs`, until the machine is nearly idle (less than a
 * fifth of a CPU busy over half a second), so that other work on a shared
 * machine disturbs the figures as little as possible. Says so when it gives up.
 * Draws on the run's patience.
 */
export async function waitForQuiet(ctx) {
  if (!ctx.quietWaitMs || !hasPatience(ctx)) return;
  const started = Date.now();
  const deadline = started + (ctx.quietWaitMs ?? 0);
  try {
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
  } finally {
    spendPatience(ctx, Date.now() - started);
  }
}
