/** Keys: the published signing keys with their dates, and a rotation (`keys list`, `keys rotate`). */
import type { PageContext, PageRoute } from '../page-route.js';
import { html, type SafeHtml } from '../html.js';
import { form, notice, page, table, when } from '../layout.js';

async function keysPage(context: PageContext, top: SafeHtml | string = ''): Promise<SafeHtml> {
  const { keys, activeKid, dates } = await context.operations.call('keys.list', {});
  const dated = new Map(dates.map((entry) => [entry.kid, entry]));
  return page(
    'Keys',
    context.signed,
    html`${top}
    ${table(
      'Signing keys',
      ['Key ID', 'Algorithm', 'Signs new tokens', 'Created', 'Retired', 'Published until'],
      keys.map((key) => {
        const kid = String(key['kid']);
        const entry = dated.get(kid);
        return [
          kid,
          String(key['alg']),
          kid === activeKid ? 'yes (active)' : 'no',
          when(entry?.createdAt),
          when(entry?.retiredAt),
          when(entry?.publishUntil),
        ];
      }),
      'No published keys.',
    )}
    ${form(context.signed, '/console/keys/rotate', html`<p class="hint">A new key signs from now on; the others stay published until the tokens they signed expire.</p>`, 'Rotate keys', { label: 'Rotate keys' })}`,
  );
}

export function keyRoutes(): PageRoute[] {
  return [
    { method: 'GET', url: '/console/keys', handle: (context) => keysPage(context) },
    {
      method: 'POST',
      url: '/console/keys/rotate',
      handle: async (context) => {
        const rotated = await context.operations.call('keys.rotate', {});
        return keysPage(
          context,
          notice(
            'success',
            `New signing key ${rotated.kid} is active; the previous keys stay published until ${when(rotated.previousKeysPublishedUntil) ?? ''}.`,
          ),
        );
      },
    },
  ];
}
