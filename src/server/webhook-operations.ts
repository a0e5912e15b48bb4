/**
 * The admin operations of `coregate webhooks …` (docs/behaviour.md#webhook-management): one
 * use-case call each (`app/webhook-admin.ts`), JSON in and out. A secret appears only in the
 * results of `webhooks.add` and `webhooks.rotate-secret`, once.
 */
import type { DeliveryView, WebhookEndpoint } from '../ports/webhook-store.js';
import type { WebhookAdmin } from '../app/webhook-admin.js';

/** An endpoint as the operator sees it (never its secret), its time as ISO text for JSON. */
type WebhookEndpointView = Omit<WebhookEndpoint, 'createdAt' | 'updatedAt'> & { readonly createdAt: string };

interface DeliveryRecordView {
  readonly id: string;
  readonly eventType: string;
  readonly url: string;
  readonly status: string;
  readonly attempts: number;
  readonly lastStatus: number | null;
  /** Why the last attempt failed; `null` once delivered or before any attempt. */
  readonly reason: string | null;
  readonly nextAttemptAt: string | null;
  readonly createdAt: string;
  readonly deliveredAt: string | null;
}

export interface WebhookOperations {
  'webhooks.add': {
    args: { platform: string; url: string; events?: string[] };
    result: { id: string; platform: string; url: string; events: string[]; secret: string };
  };
  'webhooks.list': { args: { platform: string }; result: WebhookEndpointView[] };
  'webhooks.remove': { args: { id: string }; result: { id: string; removed: true } };
  'webhooks.enable': { args: { id: string }; result: WebhookEndpointView };
  'webhooks.disable': { args: { id: string }; result: WebhookEndpointView };
  'webhooks.rotate-secret': {
    args: { id: string };
    result: { id: string; secret: string; previousSecretValidUntil: string };
  };
  /** The target policy the process running the operations applies, and whether that is the server (which applies it at send time too). */
  'webhooks.policy': { args: Record<string, never>; result: WebhookPolicyView };
  'webhooks.deliveries': { args: { platform: string; limit?: number }; result: DeliveryRecordView[] };
  /** A failed delivery back in the queue, due now. */
  'webhooks.retry': { args: { id: string }; result: { id: string; retried: true } };
}

export interface WebhookPolicyView {
  readonly production: boolean;
  readonly allowPrivate: boolean;
  /** True when a running server answers (through its admin socket): the policy every delivery is sent under. */
  readonly server: boolean;
}

type Handlers = {
  [N in keyof WebhookOperations]: (args: WebhookOperations[N]['args']) => Promise<WebhookOperations[N]['result']>;
};

function endpointView(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    id: endpoint.id,
    platform: endpoint.platform,
    url: endpoint.url,
    events: [...endpoint.events],
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt.toISOString(),
  };
}

function deliveryView(delivery: DeliveryView): DeliveryRecordView {
  return {
    id: delivery.id,
    eventType: delivery.eventType,
    url: delivery.url,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatus: delivery.lastStatus,
    reason: delivery.lastError,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
  };
}

export function webhookOperations(admin: WebhookAdmin, policy: WebhookPolicyView): Handlers {
  return {
    'webhooks.enable': async ({ id }) => endpointView(await admin.enable(id)),
    'webhooks.disable': async ({ id }) => endpointView(await admin.disable(id)),
    'webhooks.policy': () => Promise.resolve(policy),
    'webhooks.add': async ({ platform, url, events }) => {
      const { endpoint, secret } = await admin.add({ platform, url, ...(events ? { events } : {}) });
      return { id: endpoint.id, platform: endpoint.platform, url: endpoint.url, events: [...endpoint.events], secret };
    },
    'webhooks.list': async ({ platform }) => (await admin.list(platform)).map(endpointView),
    'webhooks.remove': async ({ id }) => {
      await admin.remove(id);
      return { id, removed: true };
    },
    'webhooks.rotate-secret': async ({ id }) => {
      const { endpoint, secret, previousSecretUntil } = await admin.rotateSecret(id);
      return { id: endpoint.id, secret, previousSecretValidUntil: previousSecretUntil.toISOString() };
    },
    'webhooks.retry': async ({ id }) => {
      await admin.retry(id);
      return { id, retried: true };
    },
    'webhooks.deliveries': async ({ platform, limit }) => (await admin.deliveries(platform, limit)).map(deliveryView),
  };
}
