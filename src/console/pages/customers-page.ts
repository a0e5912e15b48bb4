/**
 * Customers: one customer looked up by platform and customerId (`coregate sessions show`):
 * its status, when it was registered and last renewed, and the last failure the audit log
 * holds for it. The lookup is a POST, so customer ids stay out of URLs, history and access
 * logs. Nothing the gateway keeps about a customer's person is shown: no SSN, birth date or
 * account number reaches this page (the gateway stores none of them).
 */
import type { PageContext, PageRoute } from '../page-route.js';
import { html, type SafeHtml } from '../html.js';
import { field, form, page, when, type FieldErrors } from '../layout.js';
import { attempt, refusalNotice } from '../refusal.js';

function lookupForm(context: PageContext, errors?: FieldErrors): SafeHtml {
  const values = context.form;
  return form(
    context.signed,
    '/console/customers',
    html`${field({ name: 'platform', label: 'Platform', value: values.get('platform') ?? '', required: true, errors })}
    ${field({ name: 'customer', label: 'Customer ID', value: values.get('customer') ?? '', required: true, errors })}
    ${field({ name: 'institution', label: 'Institution', value: values.get('institution') ?? '', hint: 'Leave empty for the default institution.', errors })}`,
    'Look up',
    { className: 'stacked', label: 'Look up a customer' },
  );
}

export function customerRoutes(): PageRoute[] {
  return [
    {
      method: 'GET',
      url: '/console/customers',
      handle: (context) => Promise.resolve(page('Customers', context.signed, lookupForm(context))),
    },
    {
      method: 'POST',
      url: '/console/customers',
      handle: async (context) => {
        const values = context.form;
        const institution = values.get('institution');
        const shown = await attempt(() =>
          context.operations.call('associations.show', {
            platform: values.get('platform') ?? '',
            customerId: values.get('customer') ?? '',
            ...(institution ? { institution } : {}),
          }),
        );
        if (!shown.ok) {
          const status = shown.refusal.fields.size > 0 ? 400 : 404;
          return {
            status,
            page: page(
              'Customers',
              context.signed,
              html`${refusalNotice(shown.refusal, ['platform', 'customer', 'institution'])}${lookupForm(context, shown.refusal.fields)}`,
            ),
          };
        }
        const customer = shown.value;
        const failure = customer.lastFailure;
        return page(
          'Customers',
          context.signed,
          html`${lookupForm(context)}
            <section aria-labelledby="customer">
              <h2 id="customer">Customer ${customer.customerId}</h2>
              <dl class="facts">
                <dt>Platform</dt>
                <dd>${values.get('platform')}</dd>
                <dt>Institution</dt>
                <dd>${customer.institution}</dd>
                <dt>Status</dt>
                <dd>
                  ${customer.needsReregistration ? 'must be registered again (the core no longer knows it)' : 'registered'}
                </dd>
                <dt>Registered</dt>
                <dd>${when(customer.createdAt)}</dd>
                <dt>Last renewed</dt>
                <dd>${when(customer.updatedAt)}</dd>
                <dt>Core session until</dt>
                <dd>${when(customer.expiresAt)}</dd>
                <dt>Last core error</dt>
                <dd>
                  ${failure ? `${failure.reason ?? 'failed'} (${failure.type}, ${when(failure.occurredAt)})` : 'none recorded'}
                </dd>
              </dl>
            </section>`,
        );
      },
    },
  ];
}
