/**
 * Clients: the list; create; and per client rotate its secret (shown once, in the answer to
 * that form only), disable or enable it, and set its IP allow-list. The operations are the
 * CLI's `clients create|rotate-secret|disable|enable|update --allow-ip`.
 */
import type { ClientView } from '../../server/admin-operations.js';
import type { PageAnswer, PageContext, PageRoute } from '../page-route.js';
import { html, type SafeHtml } from '../html.js';
import { field, form, notice, page, table, when, type FieldErrors, type Signed } from '../layout.js';
import { attempt, refusalNotice } from '../refusal.js';
import { notFoundPage } from './not-found.js';

/** One entry per line (or separated by commas or spaces), as `--allow-ip` given several times. */
function entries(text: string | null): string[] {
  return (text ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

function createForm(signed: Signed, values: URLSearchParams, errors?: FieldErrors): SafeHtml {
  return form(
    signed,
    '/console/clients',
    html`${field({ name: 'name', label: 'Name', value: values.get('name') ?? '', required: true, errors })}
    ${field({ name: 'platform', label: 'Platform', value: values.get('platform') ?? '', hint: 'Leave empty: the client is its own platform.', errors })}
    ${field({ name: 'institution', label: 'Institution', value: values.get('institution') ?? '', hint: 'Leave empty for the default institution.', errors })}
    ${field({ name: 'allow-ip', label: 'IP allow-list', type: 'textarea', value: values.get('allow-ip') ?? '', hint: 'Addresses or CIDR ranges, one per line; empty: any address.', errors })}`,
    'Create client',
    { className: 'stacked', label: 'Create client' },
  );
}

async function listPage(context: PageContext, top: SafeHtml | string = '', errors?: FieldErrors): Promise<SafeHtml> {
  const clients = await context.operations.call('clients.list', {});
  return page(
    'Clients',
    context.signed,
    html`${top}
      ${table(
        'Clients',
        ['Name', 'Client ID', 'Platform', 'Institution', 'Enabled', 'IP allow-list', 'Created'],
        clients.map((client) => [
          client.name,
          html`<a href="/console/clients/${encodeURIComponent(client.id)}">${client.id}</a>`,
          client.platform,
          client.institution,
          client.enabled ? 'yes' : 'no',
          client.allowedIps.length > 0 ? client.allowedIps.join(', ') : 'any',
          when(client.createdAt),
        ]),
        'No clients yet.',
      )}
      <section aria-labelledby="create">
        <h2 id="create">Create a client</h2>
        ${createForm(context.signed, context.form, errors)}
      </section>`,
  );
}

/** The one answer that shows a secret: right after it was made. */
function secretNotice(what: string, clientId: string, secret: string): SafeHtml {
  return notice(
    'success',
    html`<p>${what} Copy the secret now: it is shown this once and cannot be read again.</p>
      <dl class="secret">
        <dt>client_id</dt>
        <dd><code>${clientId}</code></dd>
        <dt>client_secret</dt>
        <dd><code>${secret}</code></dd>
      </dl>`,
  );
}

function detailPage(
  context: PageContext,
  client: ClientView,
  top: SafeHtml | string = '',
  errors?: FieldErrors,
): SafeHtml {
  const { signed } = context;
  const base = `/console/clients/${encodeURIComponent(client.id)}`;
  return page(
    'Clients',
    signed,
    html`${top}
      <dl class="facts">
        <dt>Client ID</dt>
        <dd><code>${client.id}</code></dd>
        <dt>Platform</dt>
        <dd>${client.platform}</dd>
        <dt>Institution</dt>
        <dd>${client.institution}</dd>
        <dt>Scopes</dt>
        <dd>${client.scopes.join(' ')}</dd>
        <dt>Grants</dt>
        <dd>${client.grants.join(' ')}</dd>
        <dt>Authentication</dt>
        <dd>${client.authMethod}</dd>
        <dt>Enabled</dt>
        <dd>${client.enabled ? 'yes' : 'no'}</dd>
        <dt>Created</dt>
        <dd>${when(client.createdAt)}</dd>
        <dt>Secret rotated</dt>
        <dd>${when(client.secretRotatedAt)}</dd>
      </dl>
      <section aria-labelledby="actions">
        <h2 id="actions">Actions</h2>
        <div class="actions">
          ${client.authMethod === 'client_secret_basic' ? form(signed, `${base}/rotate-secret`, html``, 'Rotate secret') : ''}
          ${client.enabled ? form(signed, `${base}/disable`, html``, 'Disable') : form(signed, `${base}/enable`, html``, 'Enable')}
        </div>
      </section>
      <section aria-labelledby="allow-list">
        <h2 id="allow-list">IP allow-list</h2>
        ${form(
          signed,
          `${base}/allowed-ips`,
          field({
            name: 'allow-ip',
            label: 'Allowed addresses',
            type: 'textarea',
            value: errors ? (context.form.get('allow-ip') ?? '') : client.allowedIps.join('\n'),
            hint: 'Addresses or CIDR ranges, one per line; empty: any address.',
            errors,
          }),
          'Save IP allow-list',
          { className: 'stacked', label: 'IP allow-list' },
        )}
      </section>
      <p><a href="/console/clients">All clients</a></p>`,
    `Client ${client.name}`,
  );
}

/** The client of the URL, or the not-found page. */
async function withClient(
  context: PageContext,
  work: (client: ClientView) => SafeHtml | Promise<SafeHtml>,
): Promise<PageAnswer> {
  const found = await attempt(() => context.operations.call('clients.show', { id: context.params['id'] ?? '' }));
  if (!found.ok) return notFoundPage(context.signed, 'Clients', found.refusal.message);
  return work(found.value);
}

export function clientRoutes(): PageRoute[] {
  return [
    { method: 'GET', url: '/console/clients', handle: (context) => listPage(context) },
    {
      method: 'POST',
      url: '/console/clients',
      handle: async (context) => {
        const values = context.form;
        const allowedIps = entries(values.get('allow-ip'));
        const created = await attempt(() =>
          context.operations.call('clients.create', {
            name: values.get('name') ?? '',
            ...(values.get('platform') ? { platform: values.get('platform')! } : {}),
            ...(values.get('institution') ? { institution: values.get('institution')! } : {}),
            ...(allowedIps.length > 0 ? { allowedIps } : {}),
          }),
        );
        if (!created.ok)
          return {
            status: 400,
            page: await listPage(
              context,
              refusalNotice(created.refusal, ['name', 'platform', 'institution', 'allow-ip']),
              created.refusal.fields,
            ),
          };
        const { client, secret } = created.value;
        const shown =
          secret === undefined
            ? notice('success', `Client ${client.name} created.`)
            : secretNotice(`Client ${client.name} created.`, client.id, secret);
        return detailPage({ ...context, form: new URLSearchParams() }, client, shown);
      },
    },
    {
      method: 'GET',
      url: '/console/clients/:id',
      handle: (context) => withClient(context, (client) => detailPage(context, client)),
    },
    {
      method: 'POST',
      url: '/console/clients/:id/rotate-secret',
      handle: (context) =>
        withClient(context, async (client) => {
          const rotated = await attempt(() => context.operations.call('clients.rotate-secret', { id: client.id }));
          if (!rotated.ok) return detailPage(context, client, refusalNotice(rotated.refusal));
          return detailPage(
            context,
            rotated.value.client,
            secretNotice('Secret rotated: the previous one no longer works.', client.id, rotated.value.secret),
          );
        }),
    },
    ...(['disable', 'enable'] as const).map((verb) => ({
      method: 'POST' as const,
      url: `/console/clients/:id/${verb}`,
      handle: (context: PageContext) =>
        withClient(context, async (client) => {
          const changed = await attempt(() =>
            context.operations.call('clients.set-enabled', { id: client.id, enabled: verb === 'enable' }),
          );
          if (!changed.ok) return detailPage(context, client, refusalNotice(changed.refusal));
          return detailPage(context, changed.value, notice('success', `Client ${client.name} ${verb}d.`));
        }),
    })),
    {
      method: 'POST',
      url: '/console/clients/:id/allowed-ips',
      handle: (context) =>
        withClient(context, async (client) => {
          const allowedIps = entries(context.form.get('allow-ip'));
          const updated = await attempt(() =>
            context.operations.call('clients.update', {
              id: client.id,
              ...(allowedIps.length > 0 ? { allowedIps } : { clearAllowedIps: true }),
            }),
          );
          if (!updated.ok)
            return detailPage(context, client, refusalNotice(updated.refusal, ['allow-ip']), updated.refusal.fields);
          return detailPage(context, updated.value, notice('success', 'IP allow-list saved.'));
        }),
    },
  ];
}
