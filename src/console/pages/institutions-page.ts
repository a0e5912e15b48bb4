/**
 * Institutions: each bank's core kind and readiness, and `core check` run from a button,
 * with PASS or FAIL per check as `coregate core check --institution ID` prints them.
 */
import type { CoreCheckReport } from '../../server/core-check.js';
import type { PageContext, PageRoute } from '../page-route.js';
import { html, type SafeHtml } from '../html.js';
import { form, notice, page, table } from '../layout.js';
import { attempt, refusalNotice } from '../refusal.js';
import type { OverviewSource } from '../overview-source.js';
import { stateBadge } from './overview-page.js';

function reportSection(institution: string, report: CoreCheckReport): SafeHtml {
  return html`<section aria-labelledby="report">
    <h2 id="report">Core check of ${institution}: ${report.ok ? 'PASS' : 'FAIL'}</h2>
    ${table(
      `Core check of ${institution}`,
      ['Check', 'Result', 'Detail'],
      report.checks.map((check) => [
        check.name,
        html`<span class="badge ${check.ok ? 'good' : 'bad'}">${check.ok ? 'PASS' : 'FAIL'}</span>`,
        check.detail,
      ]),
      'No checks ran.',
    )}
  </section>`;
}

async function institutionsPage(context: PageContext, source: OverviewSource, top: SafeHtml | string = '') {
  const [institutions, states] = await Promise.all([
    context.operations.call('institutions.list', {}),
    source.institutions(),
  ]);
  const stateOf = new Map(states.map((state) => [state.id, state]));
  return page(
    'Institutions',
    context.signed,
    html`${top}
    ${table(
      'Institutions',
      ['Institution', 'Name', 'Core kind', 'Core URL', 'Enabled', 'Readiness', 'Breaker', 'Check'],
      institutions.map((institution) => [
        institution.id,
        institution.name,
        institution.coreKind,
        institution.coreUrl ?? 'built-in simulator',
        institution.enabled ? 'yes' : 'no',
        stateBadge(stateOf.get(institution.id)?.core ?? 'not checked'),
        stateBadge(stateOf.get(institution.id)?.breaker ?? 'none'),
        form(
          context.signed,
          `/console/institutions/${encodeURIComponent(institution.id)}/core-check`,
          html``,
          'Run core check',
          {
            label: `Run core check of ${institution.id}`,
          },
        ),
      ]),
      'No institutions.',
    )}`,
  );
}

export function institutionRoutes(source: OverviewSource): PageRoute[] {
  return [
    { method: 'GET', url: '/console/institutions', handle: (context) => institutionsPage(context, source) },
    {
      method: 'POST',
      url: '/console/institutions/:id/core-check',
      handle: async (context) => {
        const institution = context.params['id'] ?? '';
        const checked = await attempt(() => context.operations.call('core.check', { institution }));
        if (!checked.ok)
          return { status: 400, page: await institutionsPage(context, source, refusalNotice(checked.refusal)) };
        return institutionsPage(
          context,
          source,
          html`${notice(checked.value.ok ? 'success' : 'failure', `Core check of ${institution}: ${checked.value.ok ? 'PASS' : 'FAIL'}`)}${reportSection(institution, checked.value)}`,
        );
      },
    },
  ];
}
