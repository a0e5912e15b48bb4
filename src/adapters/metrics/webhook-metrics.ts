/**
 * The webhooks' Prometheus series:
 * - `coregate_webhook_deliveries_total{outcome}` — attempts by outcome (`delivered`,
 *   `retry`, `failed`, `gone`);
 * - `coregate_webhook_queue_depth` — deliveries pending, read from the outbox when scraped;
 * - `coregate_webhook_oldest_pending_seconds` — age of the oldest pending delivery.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { QueueStats } from '../../ports/webhook-store.js';

export interface WebhookMetrics {
  attempt(outcome: string): void;
}

export function registerWebhookMetrics(registry: Registry, queueStats: () => Promise<QueueStats>): WebhookMetrics {
  const deliveries = new Counter({
    name: 'coregate_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed, gone)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['delivered', 'retry', 'failed', 'gone']) deliveries.inc({ outcome }, 0);
  // One query per scrape serves both gauges.
  let pending: Promise<QueueStats> | undefined;
  const stats = () => (pending ??= queueStats().finally(() => setImmediate(() => (pending = undefined))));
  new Gauge({
    name: 'coregate_webhook_queue_depth',
    help: 'Webhook deliveries pending (due now or waiting for a retry)',
    registers: [registry],
    async collect() {
      this.set((await stats().catch(() => ({ pending: Number.NaN }))).pending);
    },
  });
  new Gauge({
    name: 'coregate_webhook_oldest_pending_seconds',
    help: 'Age of the oldest pending webhook delivery, in seconds (0 when none)',
    registers: [registry],
    async collect() {
      this.set((await stats().catch(() => ({ oldestPendingSeconds: Number.NaN }))).oldestPendingSeconds);
    },
  });
  return { attempt: (outcome) => deliveries.inc({ outcome }) };
}
