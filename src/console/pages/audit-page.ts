/**
 * Audit: the audit log, newest first, filtered by actor, action (event type) and date, a page
 * at a time (`audit list --actor --type --since --until --before`). The filter is a POST form
 * like every other; the next page is the same form with the last event's id.
 */
import { AUDIT_EVENT_TYPES } from '../../ports/audit-log.js';
import type { PageContext, PageRoute } from '../page-route.js';
import { html, type SafeHtml } from '../html.js';
import { field, form, page, select, table, when, type FieldErrors } from '../layout.js';
import { attempt, refusalNotice } from '../refusal.js';

const PAGE_SIZE = 50;
const FILTERS = ['actor', 'type', 'since', 'until'] as const;

function filterForm(context: PageContext, errors?: FieldErrors): SafeHtml {
  const values = context.form;
  return form(
    context.signed,
    '/console/audit',
    html`${field({ name: 'actor', label: 'Actor', value: values.get('actor') ?? '', hint: 'client, operator (the CLI) or operator:NAME (the console)', errors })}
    ${select({ name: 'type', label: 'Action', value: values.get('type') ?? '', choices: [['', 'any'], ...AUDIT_EVENT_TYPES.map((type) => [type, type] as const)], errors })}
    ${field({ name: 'since', label: 'Since', value: values.get('since') ?? '', hint: 'A date (2026-03-01) or a date-time with a zone (2026-03-01T12:00:00Z)', errors })}
    ${field({ name: 'until', label: 'Until', value: values.get('until') ?? '', hint: 'Events before this date or date-time', errors })}`,
    'Filter',
    { className: 'filters', label: 'Filter the audit log' },
  );
}

async function auditPage(context: PageContext): Promise<{ status: number; page: SafeHtml }> {
  const values = context.form;
  const given = (name: string) => {
    const value = values.get(name)?.trim();
    return value ? value : undefined;
  };
  const query = Object.fromEntries(
    [...FILTERS, 'before'].flatMap((name) => (given(name) === undefined ? [] : [[name, given(name)!]])),
  );
  const listed = await attempt(() => context.operations.call('audit.list', { ...query, limit: PAGE_SIZE }));
  if (!listed.ok)
    return {
      status: 400,
      page: page(
        'Audit',
        context.signed,
        html`${refusalNotice(listed.refusal, [...FILTERS])}${filterForm(context, listed.refusal.fields)}`,
      ),
    };
  const events = listed.value;
  const last = events.at(-1);
  const next =
    events.length === PAGE_SIZE && last
      ? form(
          context.signed,
          '/console/audit',
          html`${FILTERS.map((name) => (given(name) ? html`<input type="hidden" name="${name}" value="${given(name)}" />` : ''))}<input
              type="hidden"
              name="before"
              value="${last.id}"
            />`,
          'Older events',
          { label: 'Older events' },
        )
      : '';
  return {
    status: 200,
    page: page(
      'Audit',
      context.signed,
      html`${filterForm(context)}
      ${table(
        'Audit log, newest first',
        ['When', 'Action', 'Outcome', 'Reason', 'Actor', 'Client', 'Platform', 'Institution', 'Customer', 'Event'],
        events.map((event) => [
          when(event.occurredAt),
          event.type,
          event.outcome,
          event.reason,
          event.actor,
          event.clientId,
          event.platform,
          event.institution,
          event.customerId,
          event.id,
        ]),
        'No matching events.',
      )}
      ${next}`,
    ),
  };
}

export function auditRoutes(): PageRoute[] {
  return [
    { method: 'GET', url: '/console/audit', handle: (context) => auditPage(context) },
    { method: 'POST', url: '/console/audit', handle: (context) => auditPage(context) },
  ];
}
