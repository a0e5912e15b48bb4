/** The console's rate samples (docs/operations.md#console): differences of this process's counters, per step, bounded. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateSampler } from '../../src/adapters/metrics/rate-sampler.js';
import { PrometheusMetrics } from '../../src/adapters/metrics/prometheus.js';
import { rateChart } from '../../src/console/charts.js';

describe('rate sampler', () => {
  it('keeps per-step differences of requests and failures, the oldest dropped past its capacity', async () => {
    const metrics = new PrometheusMetrics();
    const sampler = new RateSampler(metrics.registry, 10, 3);
    metrics.httpRequest('GET', '/core/accounts', 200, 0.01);
    await sampler.sample();
    assert.deepEqual(
      sampler.series(),
      [{ label: 'HTTP requests', requests: [], errors: [] }],
      'the first reading is the base',
    );

    metrics.httpRequest('GET', '/core/accounts', 200, 0.01);
    metrics.httpRequest('GET', '/core/accounts', 503, 0.01);
    metrics.coreCall('listAccounts', 'ok', 0.01, 'bank-b');
    metrics.coreCall('listAccounts', 'unavailable', 0.01, 'bank-b');
    metrics.coreCall('startSession', 'customer_not_recognised', 0.01, 'bank-b');
    await sampler.sample();
    for (let step = 0; step < 3; step += 1) {
      metrics.httpRequest('GET', '/core/accounts', 200, 0.01);
      await sampler.sample();
    }
    const [http, core] = sampler.series();
    assert.deepEqual(http, { label: 'HTTP requests', requests: [1, 1, 1], errors: [0, 0, 0] }, 'three steps kept');
    assert.deepEqual(core, { label: 'core calls (bank-b)', requests: [0, 0, 0], errors: [0, 0, 0] });

    const fresh = new RateSampler(metrics.registry, 10, 5);
    await fresh.sample();
    metrics.coreCall('listAccounts', 'unavailable', 0.01, 'bank-b');
    metrics.coreCall('listAccounts', 'ok', 0.01, 'bank-b');
    await fresh.sample();
    assert.deepEqual(
      fresh.series()[1],
      { label: 'core calls (bank-b)', requests: [2], errors: [1] },
      'a refusal of a customer is no failure',
    );
  });

  it('reads the breaker state of each institution', async () => {
    const metrics = new PrometheusMetrics();
    metrics.circuitState('open', 'bank-b');
    const states = await new RateSampler(metrics.registry).circuitStates();
    assert.equal(states.get('bank-b'), 'open');
  });

  it('draws a chart whose text says what it counts', () => {
    const chart = rateChart({ label: 'HTTP requests', requests: [4, 2], errors: [1, 0] }, 10, 90).markup;
    assert.match(chart, /<svg[^>]*role="img"[^>]*aria-label="HTTP requests: 6 in the last 20 seconds, 1 failed"/);
    assert.equal(chart.match(/class="requests"/g)?.length, 2);
    assert.ok(!/style=/.test(chart), 'no inline style: the CSP allows none');
  });
});
