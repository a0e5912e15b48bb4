/**
 * The readiness checks, run in the background a few seconds apart (docs/operations.md#alerts):
 * `coregate_dependency_up` is then current whether or not anything polls `/readyz` — a load
 * balancer may probe `/healthz` only, or nothing at all — so the alerts on the database, the
 * signing key and each institution's core fire where they should. Checks run with bounded
 * concurrency; rounds never overlap; `stop` cancels the next round and waits for the one under way.
 */
import type { ReadinessProbe, ReadinessReport } from './readiness.js';

/** Schedules one call; what it returns cancels it. Injected so that tests drive the rounds. */
export type ScheduleAfter = (ms: number, run: () => void) => () => void;

/** Node's timers, unreferenced: the watch never keeps a process alive on its own. */
const nodeTimers: ScheduleAfter = (ms, run) => {
  const timer = setTimeout(run, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export interface DependencyWatchOptions {
  /** From the end of one round to the start of the next. */
  readonly intervalMs: number;
  /** Checks (the database, the signing key, each core) running at once, at most. */
  readonly concurrency: number;
  readonly schedule?: ScheduleAfter;
  /** After each round, with its report (for example to drop the series of a removed institution). */
  readonly onRound?: (report: ReadinessReport) => void;
  /** A round that could not run at all (its failure is logged; the next round is scheduled all the same). */
  readonly onError?: (error: unknown) => void;
}

export class DependencyWatch {
  private cancelNext: (() => void) | undefined;
  private underWay: Promise<void> | undefined;
  private running = false;
  private rounds = 0;

  constructor(
    private readonly probe: ReadinessProbe,
    private readonly options: DependencyWatchOptions,
  ) {}

  /** The first round at once, then one every `intervalMs`; a second call does nothing. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.scheduleIn(0);
  }

  /** One round now (also what each scheduled round runs). */
  async round(): Promise<ReadinessReport> {
    this.rounds += 1;
    const report = await this.probe.check({ requestId: `dependency-watch-${this.rounds}` }, this.options.concurrency);
    this.options.onRound?.(report);
    return report;
  }

  /** No round starts after this; resolves once the round under way (if any) has ended. */
  async stop(): Promise<void> {
    this.running = false;
    this.cancelNext?.();
    this.cancelNext = undefined;
    await this.underWay;
  }

  private scheduleIn(ms: number): void {
    const schedule = this.options.schedule ?? nodeTimers;
    this.cancelNext = schedule(ms, () => {
      this.cancelNext = undefined;
      this.underWay = this.round()
        .then(
          () => undefined,
          (error: unknown) => this.options.onError?.(error),
        )
        .finally(() => {
          this.underWay = undefined;
          if (this.running) this.scheduleIn(this.options.intervalMs);
        });
    });
  }
}
