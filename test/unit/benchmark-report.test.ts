/**
 * The benchmarks page says what it measured: the headline counts correctness problems and
 * missed targets apart, and every "added" latency is labelled with the baseline it was
 * computed against (bench/lib/report.mjs, bench/lib/results.mjs).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

/** The bench is plain JavaScript beside the repository (this file runs from `dist/test/unit/`). */
const bench = (path: string) => new URL(`../../../bench/lib/${path}`, import.meta.url).href;
const { createResults } = await import(bench('results.mjs'));
const { headline, renderMarkdown } = await import(bench('report.mjs'));

const METHOD = {
  openLoop: '(open loop method)',
  investigations: '(investigations)',
  text: '(method)',
  dpop: '(dpop)',
  profiles: '(profiles)',
};

function measurement(p50: number, p99: number, rate?: number) {
  return {
    requestsPerSecond: rate ?? 5000,
    latencyMs: { p50, p99, p999: p99, max: p99 },
    responses: 1000,
    non2xx: 0,
    errors: 0,
    seconds: 1,
    ...(rate === undefined ? {} : { targetRate: rate, unanswered: 0 }),
  };
}

/** A run of the accounts scenario's open loop: coregate beside the bare proxy and the audited-read floor. */
function openLoopRun({ floorP99: floorP99Ms }: { floorP99: number }) {
  const results = createResults();
  const proxy = results.addRow({
    scenario: 'accounts',
    variant: 'open loop 1,000 req/s',
    subject: 'bare proxy',
    baseline: true,
    measurement: measurement(0.3, 1.3, 1000),
  });
  const coregate = results.addRow({
    scenario: 'accounts',
    variant: 'pglite, open loop 1,000 req/s',
    subject: 'coregate',
    measurement: measurement(0.7, 13.3, 1000),
  });
  const floor = results.addRow({
    scenario: 'accounts',
    variant: 'pglite, open loop 1,000 req/s',
    subject: 'audited-read floor',
    baseline: true,
    measurement: measurement(0.4, floorP99Ms, 1000),
  });
  results.addedLatency(coregate, proxy, 'added to the bare proxy');
  results.addedLatency(coregate, floor, 'added to the floor', { maxAddedP99Ms: 1 });
  return {
    rows: results.rows,
    targets: results.targets,
    failures: results.failures,
    finishedAt: '2026-01-01T00:00:00.000Z',
    connections: 50,
    durations: { warmup: 1, measured: 1, rounds: 1 },
    configuration: { summary: 'defaults' },
    environment: { cpu: 'test', cpus: 2, memoryGB: 1, kernel: 'linux', node: 'v20', pinning: 'none' },
  };
}

describe('the benchmarks page', () => {
  it('says every correctness check passed and how many targets were missed, never "every check passed" above a MISS', () => {
    const report = openLoopRun({ floorP99: 1.8 });
    assert.equal(
      headline(report),
      'every correctness check passed, no request failed; 1 target missed (MISS in the targets table)',
    );
    const page: string = renderMarkdown(report, METHOD, { dbPoolMax: 10 });
    assert.match(
      page,
      /^Last full run: 2026-01-01T00:00:00.000Z — every correctness check passed, no request failed; 1 target missed/m,
    );
    assert.doesNotMatch(page, /every check passed/);
  });

  it('says every target was met only when none was missed, and names correctness problems apart from targets', () => {
    assert.match(headline(openLoopRun({ floorP99: 13 })), /every correctness check passed.*; every target met$/);
    const failed = { ...openLoopRun({ floorP99: 1.8 }), failures: ['accounts pglite coregate: 3 non-2xx'] };
    assert.equal(
      headline(failed),
      '**FAILED**: 1 correctness problem (listed below); 1 target missed (MISS in the targets table)',
    );
  });

  it('labels each added latency with the baseline it was computed against, in the results and the open-loop table', () => {
    const page: string = renderMarkdown(openLoopRun({ floorP99: 1.8 }), METHOD, { dbPoolMax: 10 });
    // Results table: both differences, each with its baseline's name (and the floor's target mark).
    assert.match(page, /\+0\.40 ms p50, \+12\.00 ms p99 over the bare proxy \(no target\)/);
    assert.match(page, /\+0\.30 ms p50, \+11\.50 ms p99 over the audited-read floor \(target p99 ≤ \+1 ms: MISS\)/);
    const header = page.split('\n').find((line) => line.startsWith('| storage | rate asked |'));
    assert.equal(
      header,
      '| storage | rate asked | coregate req/s | coregate p50 / p99 ms | bare proxy p50 / p99 ms | audited-read floor p50 / p99 ms | added over the bare proxy: p50 / p99 ms | added over the audited-read floor: p50 / p99 ms |',
    );
    const row = page.split('\n').find((line) => line.startsWith('| pglite | 1,000 |'));
    assert.equal(
      row,
      '| pglite | 1,000 | 1,000 | 0.70 / 13.30 | 0.30 / 1.30 | 0.40 / 1.80 | +0.40 / +12.00 | +0.30 / +11.50 (target p99 ≤ +1 ms: MISS) |',
    );
    assert.doesNotMatch(page, /over the proxy/);
  });
});
