/**
 * The Prometheus rules in deploy/prometheus/ pass `promtool check rules` and their unit tests
 * (`promtool test rules`, Debian's `prometheus` package). Without promtool the test is skipped
 * with the reason, except under `CI=true`, where it fails (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const DIR = fileURLToPath(new URL('../../../deploy/prometheus/', import.meta.url));
const found = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const missing = found.error === undefined ? undefined : 'promtool is not installed (apt-get install prometheus)';
const skip = process.env['CI'] === 'true' ? false : (missing ?? false);

function promtool(...args: string[]): string {
  const run = spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8', timeout: 60_000 });
  const output = `${run.stdout}${run.stderr}`;
  assert.equal(run.status, 0, output);
  return output;
}

describe('deploy/prometheus rules', { skip }, () => {
  it('are valid rules', () => {
    if (missing) assert.fail(`${missing}: CI requires it`);
    assert.match(promtool('check', 'rules', 'coregate-rules.yml'), /SUCCESS/);
  });

  it('fire as their unit tests say', () => {
    if (missing) assert.fail(`${missing}: CI requires it`);
    assert.match(promtool('test', 'rules', 'coregate-rules.test.yml'), /SUCCESS/);
  });
});
