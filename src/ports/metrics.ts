/**
 * What coregate counts and times, as events. Use cases and adapters record
 * through this port and never import the metrics library; the Prometheus
 * adapter (`adapters/metrics/prometheus.ts`) turns the events into series.
 */

/** Outcome of one call to the core, named after the port's typed results. */
export type CoreCallOutcome =
  | 'ok'
  | 'customer_not_recognised'
  | 'session_rejected'
  | 'unavailable'
  | 'busy'
  | 'protocol_error'
  | 'account_not_found'
  | 'not_supported'
  | 'error';

export type CoreCallOperation = 'startSession' | 'listAccounts' | 'listTransactions' | 'ping' | 'endSession';

/** State of the core circuit breaker. */
export type CircuitState = 'closed' | 'open' | 'half_open';

/** How a renewal waited for another one instead of starting its own core session. */
export type SingleFlightWait = 'in_process' | 'cross_process';

export interface MetricsRecorder {
  /** One HTTP request answered: `route` is the route pattern (never the raw URL), `seconds` its latency. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  tokenIssued(): void;
  /** A token request refused; `reason` is the OAuth error code sent. */
  tokenDenied(reason: string): void;
  /** The bearer check refused a request (401/403/503); `reason` is its audit reason (`missing_token`, `invalid_token`, …). */
  accessDenied(reason: string): void;
  /** `institution`: whose core was called (`default` when absent). */
  coreCall(operation: CoreCallOperation, outcome: CoreCallOutcome, seconds: number, institution?: string): void;
  /** A core session renewed (a new session started for a stored association). */
  sessionRenewed(): void;
  singleFlightWait(kind: SingleFlightWait): void;
  /** The core circuit breaker entered `state`. */
  circuitState(state: CircuitState, institution?: string): void;
  /** A core call refused at once because the circuit is open. */
  circuitRejected(operation: CoreCallOperation, institution?: string): void;
  /** A readiness check (`database`, `signing_key`, `core`, …) answered (`ok`) or not. */
  readinessCheck(check: string, ok: boolean): void;
}

/** The collected series, for `GET /metrics`. */
export interface MetricsExposition {
  /** The media type of {@link MetricsExposition.render}'s text. */
  readonly contentType: string;
  render(): Promise<string>;
}
