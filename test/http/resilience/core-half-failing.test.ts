/**
 * The core breaker against the real simulator over HTTP: a core failing half of
 * its calls (`/_sim/faults {"errorRate":0.5}`) with 10 concurrent callers keeps at
 * least 40 % of the answers 200 (the breaker opens on a failure *rate* over a
 * window with a minimum volume, not after a few failures); a core failing every
 * call opens it, and the gateway then answers 503 at once.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import {
  startSimulatorServer,
  type RunningSimulatorServer,
} from '../../../src/fakes/core-simulator/simulator-server.js';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { assertSuccess, formA, getAccounts, postSession } from '../gateway/gateway-requests.js';

async function setFaults(server: RunningSimulatorServer, faults: Record<string, number>): Promise<void> {
  const answer = await fetch(`${server.url}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(faults),
  });
  assert.equal(answer.status, 200, await answer.text());
}

describe('core half failing, then down (simulator over HTTP)', () => {
  let server: RunningSimulatorServer;
  let h: Harness;
  let token: string;

  before(async () => {
    server = await startSimulatorServer({ simulator: new CoreSimulator(), port: 0 });
    h = await createHarness(QUICKEST_BACKEND, { env: { CORE_URL: server.url, COREGATE_CORE_TIMEOUT_MS: '1000' } });
    token = await h.token(await h.client());
    assertSuccess(await postSession(h, { token }, formA('half-1')));
  });
  after(async () => {
    await h?.close();
    await server?.close();
  });

  async function load(
    target: Harness,
    bearer: string,
    customerId: string,
    ms: number,
    callers = 10,
  ): Promise<{ counts: Record<number, number>; total: number; slowest: number[] }> {
    const counts: Record<number, number> = {};
    const times: number[] = [];
    const until = performance.now() + ms;
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (performance.now() < until) {
          const t0 = performance.now();
          const status = (await getAccounts(target, { token: bearer }, customerId)).statusCode;
          times.push(performance.now() - t0);
          counts[status] = (counts[status] ?? 0) + 1;
        }
      }),
    );
    return { counts, total: times.length, slowest: times.sort((a, b) => b - a).slice(0, 3) };
  }

  it('answers at least 40 % of the requests 200 while the core fails half its calls', async () => {
    await setFaults(server, { errorRate: 0.5 });
    const { counts, total } = await load(h, token, 'half-1', 3000);
    console.log(`core 50 % failing, 10 callers, 3 s: ${total} requests ${JSON.stringify(counts)}`);
    assert.ok((counts[200] ?? 0) >= 0.4 * total, `200s: ${counts[200] ?? 0} of ${total}`);
  });

  it('fails fast (503 at once) once the core fails every call', async () => {
    // A fresh breaker (a new process's): the half-failing minutes above would otherwise
    // fill its 10 s window with successes first.
    const fresh = await createHarness(QUICKEST_BACKEND, {
      env: { CORE_URL: server.url, COREGATE_CORE_TIMEOUT_MS: '1000' },
    });
    try {
      const freshToken = await fresh.token(await fresh.client());
      await setFaults(server, { errorRate: 0 });
      assertSuccess(await postSession(fresh, { token: freshToken }, formA('down-1')));
      await setFaults(server, { errorRate: 1 });
      const opening = await load(fresh, freshToken, 'down-1', 1000);
      const { counts, total } = await load(fresh, freshToken, 'down-1', 500);
      console.log(
        `core down, 10 callers: first 1 s ${opening.total} requests ${JSON.stringify(opening.counts)}; next 0.5 s ${total} requests ${JSON.stringify(counts)}, ~${((500 * 10) / total).toFixed(1)} ms each`,
      );
      assert.equal(counts[503], total, 'every request 503 while open');
      const one = await getAccounts(fresh, { token: freshToken }, 'down-1');
      assert.equal(one.statusCode, 503);
      assert.match(String(one.headers['retry-after']), /^\d+$/);
    } finally {
      await setFaults(server, { errorRate: 0 });
      await fresh.close();
    }
  });
});
