/**
 * A network partition between coregate and PostgreSQL (sockets open, nothing
 * answers): every request is answered within the database deadline
 * (COREGATE_DB_TIMEOUT_MS, 1000 ms here) — 503 with Retry-After where it needed the
 * database — and the service recovers without a restart once the network is back.
 * PostgreSQL is reached through a TCP relay that swallows traffic.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../../support/harness.js';
import { postgresSkip } from '../../support/postgres.js';
import { PostgresRelay, relayedBackend } from '../../support/postgres-relay.js';
import { assertSuccess, formA, getAccounts, postSession } from '../../http/gateway/gateway-requests.js';
import { postToken } from '../../http/oauth/oauth-requests.js';
import { getOps } from '../../http/ops/ops-requests.js';

const TIMEOUT_MS = 1000;
/** Scheduling slack on a shared machine. */
const SLACK_MS = 700;

describe('PostgreSQL blackholed: bounded 503s, then recovery (postgres)', { skip: postgresSkip }, () => {
  const relay = new PostgresRelay();
  let drop: () => Promise<void>;
  let h: Harness;

  before(async () => {
    await relay.open();
    const relayed = await relayedBackend(relay, 4, { timeoutMs: TIMEOUT_MS });
    drop = relayed.drop;
    h = await createHarness(relayed.backend);
  });
  after(async () => {
    relay.restore();
    await h?.close();
    await relay.cut();
    await drop?.();
  });

  it('answers 12 concurrent requests within the deadline, 503 with Retry-After, and recovers', async () => {
    const client = await h.client();
    const token = await h.token(client);
    assertSuccess(await postSession(h, { token }, formA('blackhole-1')));

    relay.blackhole();
    // Past every process cache (clients, associations): each request needs the database.
    h.clock.advance(120);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const t0 = performance.now();
        const response =
          i % 3 === 0
            ? await postToken(h, { client, body: { grant_type: 'client_credentials' } })
            : i % 3 === 1
              ? await getAccounts(h, { token }, 'blackhole-1')
              : await postSession(h, { token }, formA(`blackhole-new-${i}`));
        return {
          status: response.statusCode,
          ms: performance.now() - t0,
          retryAfter: response.headers['retry-after'],
          body: response.body,
        };
      }),
    );
    const elapsed = performance.now() - started;
    const statuses = answers.map((a) => a.status);
    console.log(
      `blackhole: 12 requests, ${statuses.filter((s) => s === 503).length} × 503, slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms, all in ${Math.round(elapsed)} ms`,
    );
    for (const answer of answers) {
      assert.equal(answer.status, 503, answer.body);
      assert.equal(answer.retryAfter, '5');
      assert.ok(answer.ms < TIMEOUT_MS + SLACK_MS, `answered in ${Math.round(answer.ms)} ms`);
    }
    const ready = await getOps(h, '/readyz');
    assert.equal(ready.statusCode, 503, 'not ready while partitioned');

    relay.restore();
    const deadline = performance.now() + 5000;
    let back = await getAccounts(h, { token }, 'blackhole-1');
    while (back.statusCode !== 200 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await getAccounts(h, { token }, 'blackhole-1');
    }
    assertSuccess(back, 'after the partition ends, without a restart');
    assert.equal((await postToken(h, { client, body: { grant_type: 'client_credentials' } })).statusCode, 200);
  });
});
