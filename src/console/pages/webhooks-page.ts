/**
 * Webhooks: every platform's endpoints and its latest deliveries (`webhooks list` and
 * `webhooks deliveries` for each platform a client belongs to), and a failed delivery sent
 * again from its row (`webhooks retry`). Endpoint secrets are never shown.
 */
import type { PageContext, PageRoute } from '../page-route.js';
import { html, type SafeHtml } from '../html.js';
import { form, notice, page, table, when } from '../layout.js';
import { attempt, refusalNotice } from '../refusal.js';

const DELIVERIES_SHOWN = 20;

async function webhooksPage(context: PageContext, top: SafeHtml | string = ''): Promise<SafeHtml> {
  const { operations, signed } = context;
  const platforms = [...new Set((await operations.call('clients.list', {})).map((client) => client.platform))].sort();
  const sections = await Promise.all(
    platforms.map(async (platform) => {
      const [endpoints, deliveries] = await Promise.all([
        operations.call('webhooks.list', { platform }),
        operations.call('webhooks.deliveries', { platform, limit: DELIVERIES_SHOWN }),
      ]);
      if (endpoints.length === 0 && deliveries.length === 0) return '';
      return html`<section aria-label="Platform ${platform}">
        <h2>Platform ${platform}</h2>
        ${table(
          `Endpoints of ${platform}`,
          ['Endpoint', 'URL', 'Events', 'Enabled', 'Created'],
          endpoints.map((endpoint) => [
            endpoint.id,
            endpoint.url,
            endpoint.events.join(', '),
            endpoint.enabled ? 'yes' : `no${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}`,
            when(endpoint.createdAt),
          ]),
          'No endpoints.',
        )}
        ${table(
          `Latest deliveries of ${platform}`,
          ['Delivery', 'Event', 'Status', 'Attempts', 'Last answer', 'Why it failed', 'Next attempt', 'Action'],
          deliveries.map((delivery) => [
            delivery.id,
            delivery.eventType,
            delivery.status,
            delivery.attempts,
            delivery.lastStatus,
            delivery.reason,
            when(delivery.nextAttemptAt),
            delivery.status === 'failed'
              ? form(signed, `/console/webhooks/deliveries/${encodeURIComponent(delivery.id)}/retry`, html``, 'Retry', {
                  label: `Retry delivery ${delivery.id}`,
                })
              : '',
          ]),
          'No deliveries yet.',
        )}
      </section>`;
    }),
  );
  const shown = sections.filter((section) => section !== '');
  return page(
    'Webhooks',
    signed,
    html`${top}${shown.length > 0 ? shown : html`<p class="empty">No webhook endpoints. Add one with <code>bin/coregate webhooks add --platform P --url URL</code>.</p>`}`,
  );
}

export function webhookRoutes(): PageRoute[] {
  return [
    { method: 'GET', url: '/console/webhooks', handle: (context) => webhooksPage(context) },
    {
      method: 'POST',
      url: '/console/webhooks/deliveries/:id/retry',
      handle: async (context) => {
        const retried = await attempt(() =>
          context.operations.call('webhooks.retry', { id: context.params['id'] ?? '' }),
        );
        if (!retried.ok) return { status: 404, page: await webhooksPage(context, refusalNotice(retried.refusal)) };
        return webhooksPage(context, notice('success', `Delivery ${retried.value.id} is queued again.`));
      },
    },
  ];
}
