/**
 * A small ring buffer of request and error counts, read from this process's Prometheus
 * registry every step: the operator console draws its charts from it without a metrics
 * server. Counters only grow, so each sample is the difference from the previous reading.
 */
import type { Registry } from 'prom-client';
import type { RateSamples, RateSeries } from '../../ports/rate-samples.js';

const CORE_FAILURES = new Set(['unavailable', 'busy', 'protocol_error', 'error']);

interface Reading {
  readonly requests: number;
  readonly errors: number;
}

interface Ring {
  readonly label: string;
  requests: number[];
  errors: number[];
  previous: Reading | undefined;
}

type MetricValues = { values: { value: number; labels: Record<string, string | number | undefined> }[] };

export class RateSampler implements RateSamples {
  private readonly rings = new Map<string, Ring>();
  private timer: NodeJS.Timeout | undefined;
  /** The first reading only sets the base: what was counted before it is not one step's worth. */
  private sampled = false;

  constructor(
    private readonly registry: Registry,
    readonly stepSeconds = 10,
    readonly capacity = 90,
  ) {}

  /** Samples every step until {@link stop}; the timer never keeps the process alive. */
  start(): void {
    if (this.timer) return;
    // The base reading now, so that the first bar comes one step after the start.
    void this.sample().catch(() => {});
    this.timer = setInterval(() => void this.sample().catch(() => {}), this.stepSeconds * 1000).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async values(name: string): Promise<MetricValues['values']> {
    const metric = this.registry.getSingleMetric(name);
    if (!metric) return [];
    return ((await metric.get()) as MetricValues).values;
  }

  /** Takes one sample of every series (the timer calls it; tests call it directly). */
  async sample(): Promise<void> {
    const readings = new Map<string, Reading & { label: string }>();
    let requests = 0;
    let errors = 0;
    for (const { value, labels } of await this.values('coregate_http_requests_total')) {
      requests += value;
      if (Number(labels['status']) >= 500) errors += value;
    }
    readings.set('http', { label: 'HTTP requests', requests, errors });
    for (const { value, labels } of await this.values('coregate_core_requests_total')) {
      const institution = String(labels['institution']);
      const key = `core:${institution}`;
      const reading = readings.get(key) ?? { label: `core calls (${institution})`, requests: 0, errors: 0 };
      readings.set(key, {
        label: reading.label,
        requests: reading.requests + value,
        errors: reading.errors + (CORE_FAILURES.has(String(labels['outcome'])) ? value : 0),
      });
    }
    const first = !this.sampled;
    this.sampled = true;
    for (const [key, reading] of readings) {
      if (first) {
        this.rings.set(key, { label: reading.label, requests: [], errors: [], previous: reading });
        continue;
      }
      const ring = this.rings.get(key) ?? { label: reading.label, requests: [], errors: [], previous: undefined };
      this.rings.set(key, ring);
      const previous = ring.previous ?? { requests: 0, errors: 0 };
      ring.requests.push(Math.max(0, reading.requests - previous.requests));
      ring.errors.push(Math.max(0, reading.errors - previous.errors));
      ring.previous = reading;
      if (ring.requests.length > this.capacity) {
        ring.requests = ring.requests.slice(-this.capacity);
        ring.errors = ring.errors.slice(-this.capacity);
      }
    }
  }

  series(): RateSeries[] {
    return [...this.rings.values()].map((ring) => ({
      label: ring.label,
      requests: [...ring.requests],
      errors: [...ring.errors],
    }));
  }

  async circuitStates(): Promise<ReadonlyMap<string, string>> {
    const states = new Map<string, string>();
    for (const { value, labels } of await this.values('coregate_core_circuit_state'))
      if (value === 1) states.set(String(labels['institution']), String(labels['state']));
    return states;
  }
}
