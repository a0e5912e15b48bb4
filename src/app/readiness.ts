/**
 * Whether this process can serve requests (`GET /readyz`): each dependency is
 * checked at once, in parallel, each with a deadline so a hung one cannot hang
 * the probe. The report names every check; why one failed is for the log only.
 */

export interface ReadinessCheck {
  readonly name: string;
  /**
   * Reported only: its failure never makes the process unready. Each institution's
   * core is one (CONTRACT §3 Health): one bank's outage must not take the gateway,
   * its token endpoint and its JWKS out of the load balancer.
   */
  readonly informational?: boolean;
  /** Resolves when the dependency answers; throws (or outlasts the deadline) when it does not. */
  check(context: ReadinessContext): Promise<void>;
}

export interface ReadinessContext {
  /** The `/readyz` request's id, passed on to the core. */
  readonly requestId: string;
}

export type CheckStatus = 'ok' | 'failed';

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
  ) {}

  async check(context: ReadinessContext): Promise<ReadinessReport> {
    const checks = typeof this.checks === 'function' ? await this.checks() : this.checks;
    const results = await Promise.all(
      checks.map(async (each) => {
        const name = each.name;
        try {
          await within(Promise.resolve().then(() => each.check(context)), this.timeoutMs);
          return { name, informational: each.informational === true, detail: undefined };
        } catch (error) {
          return { name, informational: each.informational === true, detail: (error as Error)?.message ?? String(error) };
        }
      }),
    );
    const statuses: Record<string, CheckStatus> = {};
    const failures: { name: string; detail: string }[] = [];
    let ready = true;
    for (const { name, informational, detail } of results) {
      statuses[name] = detail === undefined ? 'ok' : 'failed';
      if (detail !== undefined) failures.push({ name, detail });
      if (detail !== undefined && !informational) ready = false;
    }
    return { ready, checks: statuses, failures };
  }
}
