/**
 * The operator's administration of webhook endpoints (`coregate webhooks …`,
 * docs/operations.md, "Webhooks"): add (the secret shown once), list, remove, enable and disable,
 * rotate the secret (the old one keeps signing beside the new for 24 h), and the
 * deliveries.
 */
import { randomBytes } from 'node:crypto';
import { invalidRequest, notFound, type FieldProblem } from '../domain/errors.js';
import { isLifecycleEventType, LIFECYCLE_EVENT_TYPES } from '../domain/lifecycle-event.js';
import type { Clock } from '../ports/clock.js';
import type { WebhookTargetGuard } from '../ports/webhook-sender.js';
import type { DeliveryView, WebhookEndpoint, WebhookStore } from '../ports/webhook-store.js';
import { newWebhookSecret } from './webhook-signature.js';

/** How long a rotated-out secret still signs deliveries. */
const PREVIOUS_SECRET_GRACE_SECONDS = 24 * 3600;
const DEFAULT_DELIVERIES_LIMIT = 50;
export const MAX_DELIVERIES_LIMIT = 10_000;
const MAX_URL_LENGTH = 2048;

export interface NewEndpoint {
  readonly platform: string;
  readonly url: string;
  /** Event types; none = every type. */
  readonly events?: readonly string[];
}

export class WebhookAdmin {
  constructor(
    private readonly store: WebhookStore,
    private readonly clock: Clock,
    private readonly guard: WebhookTargetGuard,
  ) {}

  async add(request: NewEndpoint): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const problems: FieldProblem[] = [];
    if (request.platform.length === 0) problems.push({ path: 'platform', message: 'must not be empty' });
    const events = [...new Set(request.events ?? [])];
    for (const type of events) {
      if (!isLifecycleEventType(type))
        problems.push({
          path: 'event',
          message: `unknown event type (expected one of ${LIFECYCLE_EVENT_TYPES.join(', ')})`,
        });
    }
    const urlProblem =
      request.url.length > MAX_URL_LENGTH
        ? `must be at most ${MAX_URL_LENGTH} characters`
        : await this.guard.problem(request.url);
    if (urlProblem) problems.push({ path: 'url', message: urlProblem });
    if (problems.length > 0) throw invalidRequest('invalid webhook endpoint', { problems });
    const secret = newWebhookSecret();
    const endpoint = await this.store.addEndpoint(
      {
        id: `wh_${randomBytes(12).toString('base64url')}`,
        platform: request.platform,
        url: request.url,
        events,
        secret,
      },
      this.clock.now(),
    );
    return { endpoint, secret };
  }

  async list(platform: string): Promise<WebhookEndpoint[]> {
    if (platform.length === 0)
      throw invalidRequest('invalid webhooks query', {
        problems: [{ path: 'platform', message: 'must not be empty' }],
      });
    return this.store.listEndpoints(platform);
  }

  async remove(id: string): Promise<void> {
    if (!(await this.store.removeEndpoint(id))) throw notFound(`no webhook endpoint "${id}"`);
  }

  /** Sends to the endpoint again (after a 410 or a disable); its URL is checked as when it was added. */
  async enable(id: string): Promise<WebhookEndpoint> {
    const existing = await this.store.findEndpoint(id);
    if (!existing) throw notFound(`no webhook endpoint "${id}"`);
    const problem = await this.guard.problem(existing.url);
    if (problem)
      throw invalidRequest('the webhook endpoint cannot be enabled', { problems: [{ path: 'url', message: problem }] });
    const endpoint = await this.store.setEnabled(id, true, this.clock.now());
    if (!endpoint) throw notFound(`no webhook endpoint "${id}"`);
    return endpoint;
  }

  /** Stops sending to the endpoint; its pending deliveries fail (`endpoint disabled (operator)`). */
  async disable(id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.store.setEnabled(id, false, this.clock.now(), 'operator');
    if (!endpoint) throw notFound(`no webhook endpoint "${id}"`);
    return endpoint;
  }

  async rotateSecret(id: string): Promise<{ endpoint: WebhookEndpoint; secret: string; previousSecretUntil: Date }> {
    const secret = newWebhookSecret();
    const now = this.clock.now();
    const previousSecretUntil = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_SECONDS * 1000);
    const endpoint = await this.store.rotateSecret(id, secret, now, previousSecretUntil);
    if (!endpoint) throw notFound(`no webhook endpoint "${id}"`);
    return { endpoint, secret, previousSecretUntil };
  }

  /** Sends a failed delivery again, soon (`webhooks retry`); its endpoint must be enabled. */
  async retry(deliveryId: string): Promise<void> {
    if (!(await this.store.retryDelivery(deliveryId, this.clock.now())))
      throw notFound(
        `no failed delivery "${deliveryId}" to an enabled endpoint (webhooks deliveries lists them; enable the endpoint first)`,
      );
  }

  async deliveries(platform: string, limit: number = DEFAULT_DELIVERIES_LIMIT): Promise<DeliveryView[]> {
    const problems: FieldProblem[] = [];
    if (platform.length === 0) problems.push({ path: 'platform', message: 'must not be empty' });
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DELIVERIES_LIMIT) {
      problems.push({ path: 'limit', message: `must be a whole number from 1 to ${MAX_DELIVERIES_LIMIT}` });
    }
    if (problems.length > 0) throw invalidRequest('invalid deliveries query', { problems });
    return this.store.listDeliveries(platform, limit);
  }
}
