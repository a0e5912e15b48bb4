/** Webhook delivery and management (docs/behaviour.md#webhooks). */
import type { AuditTrail } from '../../app/audit-trail.js';
import { WebhookAdmin } from '../../app/webhook-admin.js';
import { WebhookDispatcher } from '../../app/webhook-dispatcher.js';
import type { AesGcmSealer } from '../../adapters/crypto/aes-gcm-sealer.js';
import type { PrometheusMetrics } from '../../adapters/metrics/prometheus.js';
import { registerWebhookMetrics } from '../../adapters/metrics/webhook-metrics.js';
import { SqlWebhookStore } from '../../adapters/store/sql-webhook-store.js';
import { WebhookTargetPolicy } from '../../adapters/webhooks/target-policy.js';
import { UndiciWebhookSender } from '../../adapters/webhooks/undici-webhook-sender.js';
import type { Basics } from './basics.js';

export interface Webhooks {
  readonly store: SqlWebhookStore;
  readonly sender: UndiciWebhookSender;
  /** Delivers the outbox; `serve` starts it, commands never do. */
  readonly dispatcher: WebhookDispatcher;
  readonly admin: WebhookAdmin;
}

export function buildWebhooks(
  { config, logger, clock, database }: Basics,
  {
    sealer,
    metrics,
    audit,
  }: { readonly sealer: AesGcmSealer; readonly metrics: PrometheusMetrics; readonly audit: AuditTrail },
): Webhooks {
  const store = new SqlWebhookStore(database, sealer);
  const targetPolicy = { production: config.production, allowPrivate: config.webhookAllowPrivate };
  const sender = new UndiciWebhookSender(targetPolicy);
  const webhookMetrics = registerWebhookMetrics(metrics.registry, () => store.queueStats(clock.now()));
  const dispatcher = new WebhookDispatcher(store, sender, clock, {
    retryScheduleSeconds: config.webhookRetryScheduleSeconds,
    onAttempt: (delivery, outcome) => {
      webhookMetrics.attempt(outcome.kind);
      // Identifiers, the status and our short reason only: never the body, the secret or the receiver's answer.
      logger.info(
        {
          webhookDelivery: delivery.id,
          eventType: delivery.eventType,
          endpoint: delivery.endpointId,
          attempt: delivery.attempts + 1,
          outcome: outcome.kind,
          status: outcome.status,
          ...('error' in outcome ? { reason: outcome.error } : {}),
        },
        'webhook delivery attempted',
      );
    },
    onEndpointGone: (delivery) => {
      logger.warn(
        { endpoint: delivery.endpointId, platform: delivery.platform },
        'webhook endpoint disabled: its receiver answered 410 Gone (coregate webhooks enable ID sends to it again)',
      );
      return audit.record({
        type: 'webhook.disabled',
        outcome: 'success',
        reason: delivery.endpointId,
        actor: 'client',
        clientId: null,
        platform: delivery.platform,
        customerId: null,
        requestId: null,
      });
    },
    onRefused: (delivery, reason) =>
      logger.warn(
        { webhookDelivery: delivery.id, endpoint: delivery.endpointId, reason },
        'webhook delivery failed: its endpoint breaks the target policy this server applies',
      ),
    onError: (error) => logger.error({ err: error }, 'webhook dispatcher round failed'),
  });
  return { store, sender, dispatcher, admin: new WebhookAdmin(store, clock, new WebhookTargetPolicy(targetPolicy)) };
}
