/**
 * The dashboards and alerts in deploy/ name only metrics coregate exports: every metric of every
 * PromQL expression of deploy/prometheus/coregate-rules.yml and deploy/grafana/coregate.json is
 * announced by a live `/metrics` (each metric's `# TYPE` line is there from the start, whether or
 * not it has a sample yet; a histogram's `_bucket`, `_sum` and `_count` are its own name's).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import type { Harness } from '../../support/harness.js';
import { listeningHarness } from '../../support/listening-harness.js';

const ROOT = new URL('../../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

/** The `expr:` values of a rules file, folded blocks (`expr: |`) included. */
function ruleExpressions(yaml: string): string[] {
  const lines = yaml.split('\n');
  const expressions: string[] = [];
  for (const [index, line] of lines.entries()) {
    const match = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!match) continue;
    if (match[2] !== '|') {
      expressions.push(match[2]!);
      continue;
    }
    const block: string[] = [];
    for (const next of lines.slice(index + 1)) {
      if (next.trim() !== '' && next.search(/\S/) <= match[1]!.length) break;
      block.push(next);
    }
    expressions.push(block.join('\n'));
  }
  return expressions;
}

/** The PromQL of every panel's targets. */
function dashboardExpressions(json: string): string[] {
  const dashboard = JSON.parse(json) as { panels: Array<{ targets?: Array<{ expr: string }> }> };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}

/** Series Prometheus itself writes for every target it scrapes, not coregate's. */
const PROMETHEUS_SERIES = new Set(['up']);

const KEYWORDS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'by', 'without', 'on', 'ignoring']);

/** The metric (and recording rule) names an expression reads: identifiers that are not functions, labels or keywords. */
function metricNames(expression: string): string[] {
  const bare = expression
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  return [...bare.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\s*(\()?/g)]
    .filter((match) => match[2] === undefined && !KEYWORDS.has(match[1]!))
    .map((match) => match[1]!)
    .filter((name) => !/^\d/.test(name));
}

describe('deploy/: metric names', () => {
  const rules = read('deploy/prometheus/coregate-rules.yml');
  const recorded = new Set([...rules.matchAll(/^\s*- record:\s*(\S+)/gm)].map((match) => match[1]!));
  const used = new Map<string, string>();
  for (const expression of ruleExpressions(rules)) for (const name of metricNames(expression)) used.set(name, 'rules');
  for (const expression of dashboardExpressions(read('deploy/grafana/coregate.json')))
    for (const name of metricNames(expression)) used.set(name, 'dashboard');

  let h: Harness;
  let exported: Set<string>;
  before(async () => {
    const listening = await listeningHarness(QUICKEST_BACKEND);
    h = listening.h;
    // As `serve` does (server/main.ts): the process and Node.js metrics.
    h.services.metrics.enableProcessMetrics();
    const response = await fetch(`${listening.url}/metrics`);
    assert.equal(response.status, 200);
    const text = await response.text();
    exported = new Set([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => match[1]!));
  });
  after(() => h?.close());

  it('finds the expressions it checks', () => {
    assert.ok(used.size >= 20, [...used.keys()].join(', '));
    assert.ok(used.has('coregate_http_requests_total') && used.has('coregate_core_circuit_state'));
  });

  it('every metric of the rules and the dashboard is one coregate exports (or a recording rule of the rules)', () => {
    // The pool's metrics exist on PostgreSQL only: on the embedded engine alone (`npm run
    // test:fast`) they are left to the full run.
    const poolExported = QUICKEST_BACKEND.name === 'postgres';
    const unknown = [...used.entries()].filter(([name]) => {
      if (recorded.has(name) || (!poolExported && name.startsWith('coregate_db_pool_'))) return false;
      // Prometheus's own series for each scrape target (the alert for coregate itself gone).
      if (PROMETHEUS_SERIES.has(name)) return false;
      const base = name.replace(/_(bucket|sum|count)$/, '');
      return !exported.has(name) && !exported.has(base);
    });
    assert.deepEqual(unknown, [], `metrics that /metrics does not announce (pool metrics need PostgreSQL)`);
  });
});
