/**
 * Whether this process can serve requests (`GET /readyz`): each dependency is
 * checked at once, in parallel, each with a deadline so a hung one cannot hang
 * the probe. The report names every check; why one failed is for the log only.
 *
 * Only the checks this instance cannot serve without (`required`: the database,
 * the signing key) make it unready (docs/behaviour.md#health). The others — each core —
 * are reported in the same list but never take the instance out of the load
 * balancer: one bank's outage must not take the token endpoint and the JWKS with it.
 */

export interface ReadinessCheck {
  readonly name: string;
  /** Whether a failure makes the instance unready; true unless set to false (reported only). */
  readonly required?: boolean;
  /** Resolves when the dependency answers; throws (or outlasts the deadline) when it does not. */
  check(context: ReadinessContext): Promise<void>;
}

export interface ReadinessContext {
  /** The `/readyz` request's id, passed on to the core. */
  readonly requestId: string;
}

type CheckStatus = 'ok' | 'failed';

export interface ReadinessReport {
  readonly ready: boolean;
  /** Every check by name, e.g. `{"database": "ok", "core": "failed"}`. */
  readonly checks: Readonly<Record<string, CheckStatus>>;
  /** The failed checks with their cause (private: logged, never sent). */
  readonly failures: readonly { readonly name: string; readonly detail: string }[];
}

/** How long one check may take by default. */
const CHECK_TIMEOUT_MS = 2000;

class CheckTimedOut extends Error {}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimedOut(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export class ReadinessProbe {
  constructor(
    /** The checks, or a function listing them at each probe (the institutions change while the process runs). */
    private readonly checks: readonly ReadinessCheck[] | (() => Promise<readonly ReadinessCheck[]>),
    private readonly timeoutMs: number = CHECK_TIMEOUT_MS,
    /** Hears every check's result (for a metric per check). */
    private readonly onResult: (name: string, ok: boolean) => void = () => {},
  ) {}

  /**
   * Runs every check. `concurrency`: at most that many at once (the background watch, so a
   * gateway with many institutions never pings all their cores together); all at once unless
   * set (`/readyz`: one hung check must not delay the others past the probe's deadline).
   */
  async check(context: ReadinessContext, concurrency = Infinity): Promise<ReadinessReport> {
    const checks = typeof this.checks === 'function' ? await this.checks() : this.checks;
    const runOne = async (each: ReadinessCheck) => {
      const name = each.name;
      const required = each.required ?? true;
      try {
        await within(
          Promise.resolve().then(() => each.check(context)),
          this.timeoutMs,
        );
        this.onResult(name, true);
        return { name, required, detail: undefined };
      } catch (error) {
        this.onResult(name, false);
        return { name, required, detail: (error as Error)?.message ?? String(error) };
      }
    };
    const results = new Array<Awaited<ReturnType<typeof runOne>>>(checks.length);
    let next = 0;
    const lane = async () => {
      while (next < checks.length) {
        const at = next++;
        results[at] = await runOne(checks[at]!);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, checks.length)) }, lane));
    const statuses: Record<string, CheckStatus> = {};
    const failures: { name: string; detail: string }[] = [];
    let ready = true;
    for (const { name, required, detail } of results) {
      statuses[name] = detail === undefined ? 'ok' : 'failed';
      if (detail === undefined) continue;
      failures.push({ name, detail });
      if (required) ready = false;
    }
    return { ready, checks: statuses, failures };
  }
}
