/**
 * The readiness checks in the background (`app/dependency-watch.ts`,
 * docs/operations.md#alerts): `coregate_dependency_up` has a sample for every dependency
 * without any `/readyz` call; rounds follow one another `intervalMs` apart, never overlapping,
 * with at most `concurrency` checks at once; `stop` ends them; an institution no longer listed
 * loses its series, unless the database (which lists them) failed. The rounds are driven by an
 * injected scheduler, never by elapsed time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { PrometheusMetrics } from '../../src/adapters/metrics/prometheus.js';
import { ReadinessProbe, type ReadinessCheck } from '../../src/app/readiness.js';
import type { ScheduleAfter } from '../../src/app/dependency-watch.js';
import { buildDependencyWatch } from '../../src/server/compose/readiness.js';
import type { Basics } from '../../src/server/compose/basics.js';

/** A scheduler the test runs by hand: each call is kept until `fire`. */
class ManualSchedule {
  readonly pending: { ms: number; run: () => void; cancelled: boolean }[] = [];
  readonly schedule: ScheduleAfter = (ms, run) => {
    const entry = { ms, run, cancelled: false };
    this.pending.push(entry);
    return () => void (entry.cancelled = true);
  };
  /** Runs the one live scheduled call; returns its delay. */
  fire(): number {
    const live = this.pending.filter((entry) => !entry.cancelled);
    assert.equal(live.length, 1, 'exactly one round scheduled');
    const entry = live[0]!;
    this.pending.splice(this.pending.indexOf(entry), 1);
    entry.run();
    return entry.ms;
  }
  live(): number {
    return this.pending.filter((entry) => !entry.cancelled).length;
  }
}

/** Resolves at the next round's end. */
function nextRound(rounds: (() => void)[]): Promise<void> {
  return new Promise((resolve) => rounds.push(resolve));
}

const basics = { logger: pino({ level: 'silent' }) } as unknown as Basics;

function samples(text: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const match of text.matchAll(/^coregate_dependency_up\{check="([^"]+)"\} (\d+)$/gm)) {
    found[match[1]!] = Number(match[2]);
  }
  return found;
}

describe('background readiness checks', () => {
  it('fills coregate_dependency_up without /readyz, round after round, and stops', async () => {
    const metrics = new PrometheusMetrics();
    let coreUp = false;
    let calls = 0;
    const checks: ReadinessCheck[] = [
      { name: 'database', check: async () => void (calls += 1) },
      { name: 'signing_key', check: async () => {} },
      {
        name: 'core:bank-b',
        required: false,
        check: async () => {
          if (!coreUp) throw new Error('connection refused');
        },
      },
    ];
    const rounds: (() => void)[] = [];
    const probe = new ReadinessProbe(checks, undefined, (name, ok) => {
      metrics.readinessCheck(name, ok);
      if (name === 'core:bank-b') rounds.shift()?.();
    });
    const manual = new ManualSchedule();
    const watch = buildDependencyWatch(basics, { readiness: probe, metrics, schedule: manual.schedule });
    assert.deepEqual(samples(await metrics.render()), {}, 'nothing before the watch starts');

    watch.start();
    watch.start();
    let ended = nextRound(rounds);
    assert.equal(manual.fire(), 0, 'the first round at once');
    await ended;
    await Promise.resolve();
    assert.deepEqual(samples(await metrics.render()), { database: 1, signing_key: 1, 'core:bank-b': 0 });

    // The next round is scheduled only once this one has ended, a few seconds on.
    await waitFor(() => manual.live() === 1);
    coreUp = true;
    ended = nextRound(rounds);
    const delay = manual.fire();
    assert.ok(delay >= 1000 && delay <= 15_000, `a few seconds apart: ${delay} ms`);
    await ended;
    await waitFor(() => manual.live() === 1);
    assert.equal(samples(await metrics.render())['core:bank-b'], 1, 'the core back up');
    assert.equal(calls, 2);

    await watch.stop();
    assert.equal(manual.live(), 0, 'no round after stop');
  });

  it('runs at most four checks at once, however many institutions', async () => {
    const metrics = new PrometheusMetrics();
    let inFlight = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const checks: ReadinessCheck[] = Array.from({ length: 12 }, (_, i) => ({
      name: `core:bank-${i}`,
      required: false,
      check: () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        return new Promise<void>((resolve) =>
          gates.push(() => {
            inFlight -= 1;
            resolve();
          }),
        );
      },
    }));
    const probe = new ReadinessProbe(checks, 60_000, (name, ok) => metrics.readinessCheck(name, ok));
    const manual = new ManualSchedule();
    const watch = buildDependencyWatch(basics, { readiness: probe, metrics, schedule: manual.schedule });
    watch.start();
    manual.fire();
    let opened = 0;
    while (opened < checks.length) {
      await waitFor(() => gates.length > 0);
      assert.ok(inFlight <= 4, `${inFlight} at once`);
      gates.shift()!();
      opened += 1;
    }
    await waitFor(() => manual.live() === 1);
    assert.equal(most, 4);
    assert.equal(Object.keys(samples(await metrics.render())).length, 12);
    await watch.stop();
  });

  it('drops the series of an institution no longer listed, unless the database failed', async () => {
    const metrics = new PrometheusMetrics();
    let databaseUp = true;
    let institutions = ['core', 'core:bank-b'];
    const probe = new ReadinessProbe(
      async () => [
        {
          name: 'database',
          check: async () => {
            if (!databaseUp) throw new Error('down');
          },
        },
        ...institutions.map((name) => ({ name, required: false, check: async () => {} })),
      ],
      undefined,
      (name, ok) => metrics.readinessCheck(name, ok),
    );
    const watch = buildDependencyWatch(basics, { readiness: probe, metrics, schedule: () => () => {} });
    await watch.round();
    assert.deepEqual(Object.keys(samples(await metrics.render())).sort(), ['core', 'core:bank-b', 'database']);
    // The database down lists no institution: their last values stay.
    databaseUp = false;
    institutions = [];
    await watch.round();
    assert.deepEqual(samples(await metrics.render()), { core: 1, 'core:bank-b': 1, database: 0 });
    databaseUp = true;
    institutions = ['core'];
    await watch.round();
    assert.deepEqual(samples(await metrics.render()), { core: 1, database: 1 });
  });
});

/** Lets pending promise callbacks run until `condition` holds (bounded: a bug fails, never hangs). */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let turns = 0; !condition(); turns += 1) {
    assert.ok(turns < 1000, 'condition never held');
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
