/**
 * The core banking simulator (docs/behaviour.md#core-simulator): customers, sessions with a
 * lifetime, delegate reference IDs, statistics and injected faults. Transport-free: the HTTP
 * server (`simulator-server.ts`) and the in-process connector both drive it, so the two behave
 * the same.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AccountRecord } from '../../domain/account.js';
import type { Clock } from '../../ports/clock.js';
import type {} from '../../ports/core-connector.js';
import { systemClock } from '../../adapters/clock/system-clock.js';
import { jsonType, safeName, type Problem } from '../../adapters/core/account-record.js';
import type { ProtocolErrorCode } from '../../adapters/core/protocol.js';
import type { CustomerDirectory } from './customers.js';
import { demoDirectory } from './demo-data.js';
import type { RegistrationSubject } from '../../domain/registration.js';
import { isPlainObject } from '../../domain/json.js';

/** Default lifetime of a core session (a delegate reference ID): 15 minutes. */
export const DEFAULT_SESSION_TTL_SECONDS = 900;

/** Faults injected into the protocol endpoints (never into `/_sim/*`). */
export interface SimulatorFaults {
  /** Added before every answer. */
  readonly latencyMs: number;
  /** Share of calls, 0..1, answered with `errorStatus` instead. */
  readonly errorRate: number;
  readonly errorStatus: number;
}

const NO_FAULTS: SimulatorFaults = Object.freeze({ latencyMs: 0, errorRate: 0, errorStatus: 500 });

export interface SimulatorStats {
  /** Sessions successfully started. */
  readonly sessionsStarted: number;
  /** Account listings asked for with or without a valid session (not counting calls failed by an injected fault). */
  readonly accountRequests: number;
  /** Issued delegate reference IDs not yet expired. */
  readonly activeSessions: number;
}

/** An answer of the simulated core other than success: an HTTP status and a protocol error code. */
export class SimulatorError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SimulatorError';
  }
}

export interface CoreSimulatorOptions {
  readonly clock?: Clock;
  /** Who the core knows; the demo data set (named customers + generated population) by default. */
  readonly customers?: CustomerDirectory;
  readonly sessionTtlSeconds?: number;
  /** Decides which calls an `errorRate` fault hits; `Math.random` by default. */
  readonly random?: () => number;
}

export interface StartedSession {
  readonly customerKey: string;
  readonly delegateReferenceId: string;
  readonly expiresAt: Date;
}

interface Session {
  readonly customerKey: string;
  readonly expiresAtMs: number;
}

/** How many expired sessions one `startSession` may sweep away, keeping each call cheap. */
const SWEEP_PER_CALL = 8;

export class CoreSimulator {
  readonly clock: Clock;
  readonly customers: CustomerDirectory;
  readonly sessionTtlSeconds: number;
  /** `X-Request-Id` of the last session or account call that reached the simulator, for tests. */
  lastRequestId: string | undefined;

  private readonly random: () => number;
  /** In insertion order, which is expiry order while the TTL is fixed and the clock moves forward. */
  private readonly sessions = new Map<string, Session>();
  private currentFaults: SimulatorFaults = NO_FAULTS;
  /** Customer keys the core was told to forget. */
  private readonly forgotten = new Set<string>();
  private sessionsStarted = 0;
  private accountRequests = 0;

  constructor(options: CoreSimulatorOptions = {}) {
    const ttl = options.sessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS;
    if (!Number.isInteger(ttl) || ttl < 1)
      throw new RangeError('sessionTtlSeconds must be a positive whole number of seconds');
    this.clock = options.clock ?? systemClock;
    this.customers = options.customers ?? demoDirectory();
    this.sessionTtlSeconds = ttl;
    this.random = options.random ?? Math.random;
  }

  /** Starts a session for a customer; throws 404 `customer_not_found` for a subject the core does not know. */
  startSession(subject: RegistrationSubject, requestId?: string): StartedSession {
    this.lastRequestId = requestId;
    const customer =
      subject.kind === 'customerKey'
        ? this.customers.byKey(subject.customerKey)
        : this.customers.byDemographics(subject);
    if (!customer || this.forgotten.has(customer.customerKey))
      throw new SimulatorError(404, 'customer_not_found', 'no customer matches');
    const now = this.clock.now().getTime();
    this.sweep(now, SWEEP_PER_CALL);
    // 192 bits from the CSPRNG: unguessable, and URL/header safe as base64url.
    const delegateReferenceId = randomBytes(24).toString('base64url');
    const expiresAtMs = now + this.sessionTtlSeconds * 1000;
    this.sessions.set(delegateReferenceId, { customerKey: customer.customerKey, expiresAtMs });
    this.sessionsStarted += 1;
    return { customerKey: customer.customerKey, delegateReferenceId, expiresAt: new Date(expiresAtMs) };
  }

  /** The accounts of the session's customer; throws 401 `session_invalid` for an unknown or expired delegate reference ID. */
  listAccounts(delegateReferenceId: string, requestId?: string): readonly AccountRecord[] {
    this.lastRequestId = requestId;
    this.accountRequests += 1;
    const session = this.sessions.get(delegateReferenceId);
    if (!session || this.forgotten.has(session.customerKey))
      throw new SimulatorError(401, 'session_invalid', 'unknown or expired delegate reference ID');
    if (this.clock.now().getTime() >= session.expiresAtMs) {
      this.sessions.delete(delegateReferenceId);
      throw new SimulatorError(401, 'session_invalid', 'unknown or expired delegate reference ID');
    }
    return this.customers.byKey(session.customerKey)?.accounts ?? [];
  }

  /** Ends a session (`DELETE /v1/sessions`); an unknown or expired one is 401 `session_invalid`, as for accounts. */
  endSession(delegateReferenceId: string, requestId?: string): void {
    this.lastRequestId = requestId;
    const session = this.sessions.get(delegateReferenceId);
    this.sessions.delete(delegateReferenceId);
    if (!session || this.clock.now().getTime() >= session.expiresAtMs) {
      throw new SimulatorError(401, 'session_invalid', 'unknown or expired delegate reference ID');
    }
  }

  /**
   * Forgets a customer (`POST /_sim/customers/forget`): its sessions end and new
   * ones are refused as for an unknown customer. Returns how many sessions ended.
   */
  forgetCustomer(customerKey: string): number {
    this.forgotten.add(customerKey);
    let ended = 0;
    for (const [id, session] of this.sessions) {
      if (session.customerKey !== customerKey) continue;
      this.sessions.delete(id);
      ended += 1;
    }
    return ended;
  }

  /**
   * Applies the injected faults to one protocol call: waits `latencyMs` (cut short
   * by `signal`), then fails the call with `errorStatus` for a share `errorRate` of calls.
   */
  async applyFaults(signal?: AbortSignal): Promise<void> {
    const { latencyMs, errorRate, errorStatus } = this.currentFaults;
    if (latencyMs > 0) await sleep(latencyMs, undefined, signal ? { signal } : undefined);
    if (errorRate > 0 && this.random() < errorRate) {
      throw new SimulatorError(errorStatus, 'core_failure', 'fault injected by the simulator');
    }
  }

  get faults(): SimulatorFaults {
    return this.currentFaults;
  }

  /** Replaces the faults; fields left out take their no-fault value, so `{}` resets. */
  setFaults(faults: Partial<SimulatorFaults>): SimulatorFaults {
    const problems = faultProblems(faults);
    if (problems.length > 0)
      throw new RangeError(problems.map((problem) => `${problem.path}: ${problem.message}`).join('; '));
    this.currentFaults = Object.freeze({ ...NO_FAULTS, ...faults });
    return this.currentFaults;
  }

  stats(): SimulatorStats {
    this.sweep(this.clock.now().getTime(), Infinity);
    let activeSessions = 0;
    const now = this.clock.now().getTime();
    for (const session of this.sessions.values()) if (now < session.expiresAtMs) activeSessions += 1;
    return { sessionsStarted: this.sessionsStarted, accountRequests: this.accountRequests, activeSessions };
  }

  /** Makes every issued delegate reference ID invalid now; returns how many were still active. */
  expireAll(): number {
    const now = this.clock.now().getTime();
    let active = 0;
    for (const session of this.sessions.values()) if (now < session.expiresAtMs) active += 1;
    this.sessions.clear();
    return active;
  }

  /** Forgets expired sessions from the oldest on, at most `limit` of them. */
  private sweep(now: number, limit: number): void {
    let swept = 0;
    for (const [id, session] of this.sessions) {
      if (swept >= limit || session.expiresAtMs > now) return;
      this.sessions.delete(id);
      swept += 1;
    }
  }
}

const FAULT_FIELDS = new Set(['latencyMs', 'errorRate', 'errorStatus']);

function faultProblems(value: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const name of Object.keys(value)) {
    if (!FAULT_FIELDS.has(name))
      problems.push({ path: safeName(name), message: 'unknown field (expected latencyMs, errorRate, errorStatus)' });
  }
  const { latencyMs, errorRate, errorStatus } = value;
  if (
    latencyMs !== undefined &&
    !(Number.isInteger(latencyMs) && (latencyMs as number) >= 0 && (latencyMs as number) <= 600_000)
  ) {
    problems.push({
      path: 'latencyMs',
      message: `expected a whole number of milliseconds, 0 to 600000, got ${describe(latencyMs)}`,
    });
  }
  if (errorRate !== undefined && !(typeof errorRate === 'number' && errorRate >= 0 && errorRate <= 1)) {
    problems.push({ path: 'errorRate', message: `expected a number from 0 to 1, got ${describe(errorRate)}` });
  }
  if (
    errorStatus !== undefined &&
    !(Number.isInteger(errorStatus) && (errorStatus as number) >= 400 && (errorStatus as number) <= 599)
  ) {
    problems.push({
      path: 'errorStatus',
      message: `expected an HTTP error status, 400 to 599, got ${describe(errorStatus)}`,
    });
  }
  return problems;
}

function describe(value: unknown): string {
  return typeof value === 'number' ? String(value) : jsonType(value);
}

/** Reads a `POST /_sim/faults` body: the faults, or the problems with it. */
export function readFaults(body: unknown): { faults: Partial<SimulatorFaults> } | { problems: Problem[] } {
  if (!isPlainObject(body))
    return { problems: [{ path: '(body)', message: `expected an object, got ${jsonType(body)}` }] };
  const problems = faultProblems(body);
  return problems.length > 0 ? { problems } : { faults: body };
}
