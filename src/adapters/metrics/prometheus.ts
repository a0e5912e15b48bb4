/**
 * Every metric coregate exports, in one place, on a registry of its own (never
 * prom-client's global one, so each app — and each test — counts for itself).
 * docs/operations.md lists the same names; keep both in step.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { databaseRefusals, type PoolStats } from '../store/database.js';
import { DEFAULT_INSTITUTION } from '../../domain/institution.js';
import type {
  CircuitState,
  CoreCallOperation,
  CoreCallOutcome,
  MetricsExposition,
  MetricsRecorder,
  SingleFlightWait,
} from '../../ports/metrics.js';

export interface PrometheusMetricsOptions {
  /** The database pool to report on; absent for the embedded database (one connection, no pool). */
  readonly poolStats?: () => PoolStats;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const CIRCUIT_STATES: readonly CircuitState[] = ['closed', 'open', 'half_open'];
const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
];

export class PrometheusMetrics implements MetricsRecorder, MetricsExposition {
  readonly registry = new Registry();
  private processMetrics = false;

  private readonly httpRequests = new Counter({
    name: 'coregate_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status (health and metrics endpoints excluded)',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'coregate_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly tokensIssued = new Counter({
    name: 'coregate_oauth_tokens_issued_total',
    help: 'Access tokens issued by POST /oauth2/token',
    registers: [this.registry],
  });
  private readonly tokensDenied = new Counter({
    name: 'coregate_oauth_tokens_denied_total',
    help: 'Token requests refused, by the OAuth error code answered',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly accessDenials = new Counter({
    name: 'coregate_access_denied_total',
    help: 'Requests refused by the bearer check of a gateway route, by reason (every one, while the audit log aggregates those of unidentified callers)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly coreRequests = new Counter({
    name: 'coregate_core_requests_total',
    help: 'Calls that reached the core banking system, by institution, operation and outcome',
    labelNames: ['institution', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly coreDuration = new Histogram({
    name: 'coregate_core_request_duration_seconds',
    help: 'Duration of calls to the core banking system, by institution, operation and outcome',
    labelNames: ['institution', 'operation', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly renewals = new Counter({
    name: 'coregate_core_session_renewals_total',
    help: 'Core sessions renewed for stored associations',
    registers: [this.registry],
  });
  private readonly renewalWaits = new Counter({
    name: 'coregate_core_session_renewal_waits_total',
    help: "Renewals that waited for another one instead of starting a core session (in_process: joined a pending renewal; cross_process: waited on another process's lease)",
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly circuit = new Gauge({
    name: 'coregate_core_circuit_state',
    help: 'Core circuit breaker state of each institution: 1 for the current state (closed, open, half_open), 0 for the others',
    labelNames: ['institution', 'state'] as const,
    registers: [this.registry],
  });
  private readonly circuitTransitions = new Counter({
    name: 'coregate_core_circuit_transitions_total',
    help: 'Changes of the core circuit breaker state, by institution and the state entered',
    labelNames: ['institution', 'state'] as const,
    registers: [this.registry],
  });
  private readonly circuitRejections = new Counter({
    name: 'coregate_core_circuit_rejected_total',
    help: 'Core calls refused at once (503) because the circuit breaker is open, by institution and operation',
    labelNames: ['institution', 'operation'] as const,
    registers: [this.registry],
  });
  /** The `check` labels {@link readiness} has a series for. */
  private readonly readinessChecks = new Set<string>();
  private readonly readiness = new Gauge({
    name: 'coregate_dependency_up',
    help: 'Result of the last readiness check per dependency (database, signing_key, core), run in the background every few seconds and on /readyz: 1 answered, 0 failed; a core at 0 does not make the instance unready',
    labelNames: ['check'] as const,
    registers: [this.registry],
  });

  private readonly spansDropped = new Counter({
    name: 'coregate_trace_spans_dropped_total',
    help: "Trace spans lost instead of exported (tracing on): queue_full when the export queue was full, else the failed export's error (the collector unreachable or slow); requests are never held for them",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly tlsExpiry = new Gauge({
    name: 'coregate_tls_certificate_expiry_timestamp_seconds',
    help: 'When the certificate served over native HTTPS (COREGATE_TLS_CERT_FILE) expires, in Unix seconds; absent without native HTTPS',
    labelNames: ['listener'] as const,
    registers: [this.registry],
  });

  constructor(options: PrometheusMetricsOptions = {}) {
    for (const reason of OAUTH_ERROR_CODES) this.tokensDenied.inc({ reason }, 0);
    this.spansDropped.inc({ reason: 'queue_full' }, 0);
    const refusals = databaseRefusals;
    let counted = 0;
    new Counter({
      name: 'coregate_db_unavailable_total',
      help: 'Database waits refused with 503 (the database unreachable, the pool or the single embedded connection busy past the deadline, or a request out of its COREGATE_DB_TIMEOUT_MS)',
      registers: [this.registry],
      collect() {
        const now = refusals();
        this.inc(now - counted);
        counted = now;
      },
    });
    this.showCircuit('closed', DEFAULT_INSTITUTION);
    const poolStats = options.poolStats;
    if (poolStats) {
      const gauge = (name: string, help: string, read: (stats: PoolStats) => number) =>
        new Gauge({
          name,
          help,
          registers: [this.registry],
          collect() {
            this.set(read(poolStats()));
          },
        });
      gauge(
        'coregate_db_pool_connections',
        'PostgreSQL connections open in the pool (busy and idle)',
        (stats) => stats.total,
      );
      gauge(
        'coregate_db_pool_idle_connections',
        'PostgreSQL connections open and idle in the pool',
        (stats) => stats.idle,
      );
      gauge(
        'coregate_db_pool_waiting_requests',
        'Queries waiting for a free PostgreSQL connection',
        (stats) => stats.waiting,
      );
      gauge(
        'coregate_db_pool_max_connections',
        'Size limit of the PostgreSQL pool (COREGATE_DB_POOL_MAX)',
        (stats) => stats.max,
      );
    }
  }

  /** Adds prom-client's process and Node.js metrics (CPU, memory, event loop lag, GC): for the server only. */
  enableProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  /** Trace spans lost, `reason` `queue_full` or the failed export's error name. */
  traceSpansDropped(count: number, reason: string): void {
    this.spansDropped.inc({ reason }, count);
  }

  /** The native HTTPS certificate's end of validity. */
  tlsCertificateExpires(notAfter: Date): void {
    this.tlsExpiry.set({ listener: 'api' }, Math.floor(notAfter.getTime() / 1000));
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  tokenIssued(): void {
    this.tokensIssued.inc();
  }

  tokenDenied(reason: string): void {
    this.tokensDenied.inc({ reason });
  }

  accessDenied(reason: string): void {
    this.accessDenials.inc({ reason });
  }

  coreCall(
    operation: CoreCallOperation,
    outcome: CoreCallOutcome,
    seconds: number,
    institution = DEFAULT_INSTITUTION,
  ): void {
    this.coreRequests.inc({ institution, operation, outcome });
    this.coreDuration.observe({ institution, operation, outcome }, seconds);
  }

  sessionRenewed(): void {
    this.renewals.inc();
  }

  singleFlightWait(kind: SingleFlightWait): void {
    this.renewalWaits.inc({ kind });
  }

  circuitState(state: CircuitState, institution = DEFAULT_INSTITUTION): void {
    this.circuitTransitions.inc({ institution, state });
    this.showCircuit(state, institution);
  }

  circuitRejected(operation: CoreCallOperation, institution = DEFAULT_INSTITUTION): void {
    this.circuitRejections.inc({ institution, operation });
  }

  readinessCheck(check: string, ok: boolean): void {
    this.readinessChecks.add(check);
    this.readiness.set({ check }, ok ? 1 : 0);
  }

  /** Drops the series of every check not in `checks` (an institution disabled or removed since). */
  keepReadinessChecks(checks: readonly string[]): void {
    const kept = new Set(checks);
    for (const check of this.readinessChecks) {
      if (kept.has(check)) continue;
      this.readiness.remove({ check });
      this.readinessChecks.delete(check);
    }
  }

  private showCircuit(state: CircuitState, institution: string): void {
    for (const each of CIRCUIT_STATES) this.circuit.set({ institution, state: each }, each === state ? 1 : 0);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
