/** Overview: each institution's core and breaker, and the request and error rates of the last minutes. */
import type { OverviewSource } from '../overview-source.js';
import { rateChart } from '../charts.js';
import type { PageRoute } from '../page-route.js';
import { html } from '../html.js';
import { page, table } from '../layout.js';

export function stateBadge(state: string) {
  const kind =
    state === 'ok' || state === 'closed' ? 'good' : state === 'failed' || state === 'open' ? 'bad' : 'neutral';
  return html`<span class="badge ${kind}">${state}</span>`;
}

export function overviewRoutes(source: OverviewSource): PageRoute[] {
  return [
    {
      method: 'GET',
      url: '/console',
      handle: async ({ signed }) => {
        const institutions = await source.institutions();
        const { samples } = source;
        const charts = samples.series();
        return page(
          'Overview',
          signed,
          html`<section aria-labelledby="cores">
              <h2 id="cores">Cores</h2>
              ${table(
                'Each institution’s core',
                ['Institution', 'Name', 'Core kind', 'Enabled', 'Core', 'Breaker'],
                institutions.map((each) => [
                  each.id,
                  each.name,
                  each.coreKind,
                  each.enabled ? 'yes' : 'no',
                  stateBadge(each.core),
                  stateBadge(each.breaker),
                ]),
                'No institutions.',
              )}
            </section>
            <section aria-labelledby="rates">
              <h2 id="rates">Requests and errors</h2>
              <p class="hint">
                Sampled in this server process every ${samples.stepSeconds} seconds; the charts keep the last
                ${Math.round((samples.capacity * samples.stepSeconds) / 60)} minutes.
              </p>
              ${charts.length === 0 ? html`<p class="empty">No samples yet: the first comes ${samples.stepSeconds} seconds after the server started.</p>` : html`<div class="charts">${charts.map((series) => rateChart(series, samples.stepSeconds, samples.capacity))}</div>`}
            </section>`,
        );
      },
    },
  ];
}
