/**
 * What a run collects: one row per measured server, the targets checked on
 * them, and the run's verdict. A row fails when any request got a non-2xx
 * answer or an error; a scenario fails when its correctness check or its set-up
 * fails. Targets are benchmark figures: missing one does not fail the run.
 */

import { isDisturbed } from './measure.mjs';

const MB = 1024 * 1024;

export function createResults() {
  const rows = [];
  const targets = [];
  const failures = [];
  return {
    rows,
    targets,
    failures,
    /** Adds a measured row; `measurement` comes from `measure()`. */
    addRow({ scenario, variant, subject, baseline = false, measurement, notes = [] }) {
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
        responses: m.responses,
        seconds: round(m.seconds, 2),
        non2xx: m.non2xx,
        errors: m.errors,
        statusCodes: m.statusCodes,
        attempts: m.attempts,
        status: failed ? 'failed' : 'ok',
        notes: [...notes],
      };
      if (isDisturbed(m)) {
        row.notes.push(`other processes used ${Math.round(m.otherCpuShare * 100)}% of a CPU meanwhile (best of ${m.attempts} attempts): figure disturbed, run again on a quiet machine`);
        row.disturbed = true;
      } else if (m.attempts > 1) {
        row.notes.push(`measured ${m.attempts} times: the machine was busy with other work the first time`);
      }
      if (m.loadSideCpuShare !== undefined && m.loadSideCpuShare >= 0.9) {
        row.notes.push(`load CPU ${Math.round(m.loadSideCpuShare * 100)}% busy: may be bounded by the load side`);
      }
      if (failed) failures.push(`${scenario} ${variant ?? ''} ${subject}: ${m.non2xx} non-2xx, ${m.errors} errors (${JSON.stringify(m.statusCodes)})`);
      rows.push(row);
      return row;
    },
    /** Adds a row that is not a throughput figure (the renewal storm). */
    addSpecialRow(row) {
      if (row.status === 'failed') failures.push(`${row.scenario} ${row.variant ?? ''} ${row.subject}: ${row.notes.join('; ')}`);
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
    /** Sets `row.vs` to its ratios against `baselineRow`. */
    compare(row, baselineRow) {
      row.vs = {
        baseline: baselineRow.subject + (baselineRow.variant ? ` (${baselineRow.variant})` : ''),
        requestsPerSecond: ratio(row.requestsPerSecond, baselineRow.requestsPerSecond),
        p99: ratio(row.p99Ms, baselineRow.p99Ms),
      };
      return row.vs;
    },
    /** A target: `pass` true/false, or `undefined` when it could not be measured. */
    addTarget({ scenario, name, required, measured, pass }) {
      targets.push({ scenario, name, required, measured, pass });
    },
  };
}

export function round(value, digits) {
  if (value === undefined || value === null || Number.isNaN(value)) return undefined;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function ratio(a, b) {
  if (a === undefined || b === undefined || b === 0) return undefined;
  return round(a / b, 3);
}
