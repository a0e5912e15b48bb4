/**
 * What a run collects: one row per measured server, the targets checked on
 * them, and the run's verdict. A row fails when any request got a non-2xx
 * answer or an error; a scenario fails when its correctness check or its set-up
 * fails. Targets are benchmark figures: missing one does not fail the run.
 */

import { isDisturbed } from './measure.mjs';

const MB = 1024 * 1024;

/** `{min}` or `{max}`, a ratio: how the target reads. */
function requirement(target) {
  return target.min !== undefined ? `≥ ${target.min}×` : `≤ ${target.max}×`;
}

function meets(value, target) {
  if (value === undefined) return undefined;
  return target.min !== undefined ? value >= target.min : value <= target.max;
}

export function createResults() {
  const rows = [];
  const targets = [];
  const failures = [];
  /** A target: `pass` true/false, or `undefined` when it could not be measured or has no limit. */
  const addTarget = ({ scenario, name, required, measured, pass }) => {
    targets.push({ scenario, name, required, measured, pass });
  };
  return {
    rows,
    targets,
    failures,
    /**
     * Adds a measured row; `measurement` comes from `measure()`; `settings` are
     * what the server ran with beyond the suite's common configuration.
     */
    addRow({ scenario, variant, subject, baseline = false, measurement, settings, notes = [] }) {
      const m = measurement;
      const failed = m.non2xx > 0 || m.errors > 0;
      const row = {
        scenario,
        variant,
        subject,
        baseline,
        requestsPerSecond: round(m.requestsPerSecond, 1),
        p50Ms: round(m.latencyMs.p50, 3),
        p99Ms: round(m.latencyMs.p99, 3),
        p999Ms: round(m.latencyMs.p999, 3),
        maxMs: round(m.latencyMs.max, 3),
        cpuMicrosPerRequest: round(m.cpuMicrosPerRequest, 1),
        serverCpuShare: round(m.serverCpuShare, 3),
        loadSideCpuShare: round(m.loadSideCpuShare, 3),
        otherCpuShare: round(m.otherCpuShare, 3),
        peerCpu: m.peerCpu?.map((peer) => ({ name: peer.name, share: round(peer.share, 3) })),
        rssMB: m.rssBytes === undefined ? undefined : round(m.rssBytes / MB, 1),
        ...(m.eventLoop?.utilisation !== undefined ? { eventLoopUtilisation: round(m.eventLoop.utilisation, 3) } : {}),
        ...(settings && Object.keys(settings).length ? { settings } : {}),
        ...(m.targetRate
          ? { targetRate: m.targetRate, unanswered: m.unanswered, schedulerLagMs: roundAll(m.schedulerLagMs, 3) }
          : {}),
        ...(m.database
          ? {
              database: {
                connections: m.database.connections,
                cpuMicrosPerRequest: round(m.database.cpuMicrosPerRequest, 1),
                transactionsPerRequest: round(m.database.transactionsPerRequest, 2),
              },
            }
          : {}),
        responses: m.responses,
        seconds: round(m.seconds, 2),
        non2xx: m.non2xx,
        errors: m.errors,
        statusCodes: m.statusCodes,
        attempts: m.attempts,
        status: failed ? 'failed' : 'ok',
        notes: [...notes],
      };
      if (!m.responses) {
        // Nothing was answered within the run (a machine far too busy): there is no latency to show.
        for (const key of ['p50Ms', 'p99Ms', 'p999Ms', 'maxMs']) row[key] = undefined;
        row.notes.push('no request was answered within the measured run: no figure');
      }
      if (row.eventLoopUtilisation !== undefined) {
        row.notes.push(
          `event loop busy ${Math.round(row.eventLoopUtilisation * 100)}% of the measured time (performance.eventLoopUtilization; see Method, "Event loop")`,
        );
      }
      if (row.settings)
        row.notes.push(
          `settings beyond the deployed configuration: ${Object.entries(row.settings)
            .map(([key, value]) => `${key}=${value}`)
            .join(', ')}`,
        );
      if (isDisturbed(m)) {
        row.notes.push(
          `other processes used ${Math.round(m.otherCpuShare * 100)}% of a CPU meanwhile (best of ${m.attempts} attempts): figure disturbed, run again on a quiet machine`,
        );
        row.disturbed = true;
      } else if (m.attempts > 1) {
        row.notes.push(`measured ${m.attempts} times: the machine was busy with other work the first time`);
      }
      if (m.loadSideCpuShare !== undefined && m.loadSideCpuShare >= 0.9) {
        row.notes.push(`load CPU ${Math.round(m.loadSideCpuShare * 100)}% busy: may be bounded by the load side`);
      }
      if (m.targetRate && m.requestsPerSecond < 0.95 * m.targetRate) {
        const cut = m.unanswered
          ? `; ${m.unanswered} requests still queued or in flight when the run stopped waiting`
          : '';
        row.notes.push(
          `answered ${Math.round(m.requestsPerSecond)} of the ${m.targetRate} req/s asked: the server (or the load side) did not keep up${cut}`,
        );
      }
      if (m.schedulerLagMs && m.schedulerLagMs.p99 > 5) {
        row.notes.push(
          `the load generator started requests up to ${round(m.schedulerLagMs.p99, 1)} ms late (p99): its CPU was busy`,
        );
      }
      if (failed)
        failures.push(
          `${scenario} ${variant ?? ''} ${subject}: ${m.non2xx} non-2xx, ${m.errors} errors (${JSON.stringify(m.statusCodes)})`,
        );
      rows.push(row);
      return row;
    },
    /** Adds a row that is not a throughput figure (the renewal storm). */
    addSpecialRow(row) {
      if (row.status === 'failed')
        failures.push(`${row.scenario} ${row.variant ?? ''} ${row.subject}: ${row.notes.join('; ')}`);
      rows.push(row);
      return row;
    },
    /** Records that a scenario could not be measured. */
    addFailure(scenario, error) {
      const message = error?.message ?? String(error);
      failures.push(`${scenario}: ${message}`);
      rows.push({ scenario, subject: '—', status: 'failed', notes: [message.split('\n')[0]] });
    },
    addSkipped(scenario, reason) {
      rows.push({ scenario, subject: '—', status: 'skipped', notes: [reason] });
    },
    /**
     * Sets `row.vs` to its ratios against `baselineRow`. Each of `goals`
     * (`requestsPerSecond` and `p99`: `{name, min}` or `{name, max}`) is checked,
     * written beside its ratio and added to the targets.
     */
    compare(row, baselineRow, goals = {}) {
      row.vs = {
        baseline: baselineRow.subject + (baselineRow.variant ? ` (${baselineRow.variant})` : ''),
        requestsPerSecond: ratio(row.requestsPerSecond, baselineRow.requestsPerSecond),
        p99: ratio(row.p99Ms, baselineRow.p99Ms),
      };
      for (const [metric, goal] of Object.entries(goals)) {
        const value = row.vs[metric];
        const check = { required: requirement(goal), pass: meets(value, goal) };
        (row.vs.targets ??= {})[metric] = check;
        let measured = 'not measured';
        if (value !== undefined) {
          measured =
            metric === 'p99'
              ? `${value}× (${row.p99Ms} vs ${baselineRow.p99Ms} ms)`
              : `${value}× (${row.requestsPerSecond} vs ${baselineRow.requestsPerSecond} req/s)`;
        }
        addTarget({ scenario: row.scenario, name: goal.name, measured, ...check });
      }
      return row.vs;
    },
    /**
     * Adds to `row.vs.added` the latency `row` adds to `baselineRow`'s, named after what it is
     * computed against (`against`: the baseline's subject), so a row measured against two
     * baselines (the bare proxy, the audited-read floor) keeps both; with `maxAddedP99Ms` the
     * added p99 is a target.
     */
    addedLatency(row, baselineRow, name, { maxAddedP99Ms } = {}) {
      const limited = maxAddedP99Ms !== undefined;
      const added = {
        against: baselineRow.subject,
        baseline: baselineRow.subject + (baselineRow.variant ? ` (${baselineRow.variant})` : ''),
        baselineP50Ms: baselineRow.p50Ms,
        baselineP99Ms: baselineRow.p99Ms,
        p50Ms: difference(row.p50Ms, baselineRow.p50Ms),
        p99Ms: difference(row.p99Ms, baselineRow.p99Ms),
      };
      const check = {
        required: limited ? `p99 ≤ +${maxAddedP99Ms} ms` : 'reported (no target)',
        pass: limited && added.p99Ms !== undefined ? added.p99Ms <= maxAddedP99Ms : undefined,
      };
      if (limited) added.target = check;
      row.vs = { ...row.vs, added: [...(row.vs?.added ?? []), added] };
      addTarget({
        scenario: row.scenario,
        name,
        measured: `p50 ${signed(added.p50Ms)} ms (${row.p50Ms} vs ${baselineRow.p50Ms}), p99 ${signed(added.p99Ms)} ms (${row.p99Ms} vs ${baselineRow.p99Ms})`,
        ...check,
      });
      return row.vs;
    },
    /**
     * Sets `row.vs` to its CPU time per request against `baselineRow`'s. `goal.label` says what
     * the baseline is; with `goal.max` (and `goal.name`) the ratio is a target.
     */
    compareCpu(row, baselineRow, goal) {
      row.vs = {
        baseline: baselineRow.subject + (baselineRow.variant ? ` (${baselineRow.variant})` : ''),
        cpuMicrosPerRequest: ratio(row.cpuMicrosPerRequest, baselineRow.cpuMicrosPerRequest),
      };
      if (goal?.label) row.vs.cpuLabel = goal.label;
      if (goal?.max !== undefined) {
        const check = { required: requirement(goal), pass: meets(row.vs.cpuMicrosPerRequest, goal) };
        (row.vs.targets ??= {}).cpuMicrosPerRequest = check;
        const measured =
          row.vs.cpuMicrosPerRequest === undefined
            ? 'not measured'
            : `${row.vs.cpuMicrosPerRequest}× (${row.cpuMicrosPerRequest} vs ${baselineRow.cpuMicrosPerRequest} µs)`;
        addTarget({ scenario: row.scenario, name: goal.name, measured, ...check });
      }
      return row.vs;
    },
    addTarget,
  };
}

export function round(value, digits) {
  if (value === undefined || value === null || Number.isNaN(value)) return undefined;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** "+1.5", "-0.2": a difference with its sign. */
function signed(value) {
  return value === undefined ? 'not measured' : `${value >= 0 ? '+' : ''}${value}`;
}

function difference(a, b) {
  return a === undefined || b === undefined ? undefined : round(a - b, 3);
}

function roundAll(values, digits) {
  return values && Object.fromEntries(Object.entries(values).map(([key, value]) => [key, round(value, digits)]));
}

export function ratio(a, b) {
  if (a === undefined || b === undefined || b === 0) return undefined;
  return round(a / b, 3);
}
