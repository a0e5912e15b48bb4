/**
 * `coregate webhooks add|list|remove|rotate-secret|deliveries` (CONTRACT §9),
 * through the admin operations `webhooks.*` (use case `WebhookAdmin`). A secret
 * is printed once, by `add` and `rotate-secret`; nothing else ever shows it.
 */
import type { AdminClient } from '../server/admin-operations.js';
import { UsageError, type CliIo } from './io.js';
import { parse } from './parse-args.js';

export const WEBHOOKS_HELP = `Usage:
  coregate webhooks add --platform P --url URL [--event TYPE]... [--json]
  coregate webhooks list --platform P [--json]
  coregate webhooks remove ID [--json]
  coregate webhooks rotate-secret ID [--json]
  coregate webhooks deliveries --platform P [--limit N] [--json]

add prints the endpoint's signing secret once (whsec_…); without --event every event type is sent:
customer.registered, customer.reregistration_required, customer.deregistered.
rotate-secret prints the new secret once; deliveries are signed with both secrets for 24 hours.
deliveries lists the newest first (default 50): status pending, delivered or failed.`;

function table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | null>>): string {
  return [header, ...rows.map((row) => row.map((cell) => (cell === null ? '-' : String(cell))))].map((row) => row.join('\t')).join('\n');
}

export async function webhooksCommand(args: string[], admin: AdminClient, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === 'help') {
    io.out(WEBHOOKS_HELP);
    return action === undefined ? 2 : 0;
  }
  switch (action) {
    case 'add': {
      const { values } = parse(rest, { platform: { type: 'string' }, url: { type: 'string' }, event: { type: 'string', multiple: true } }, 0);
      if (values.help) return (io.out(WEBHOOKS_HELP), 0);
      if (typeof values.platform !== 'string') throw new UsageError('--platform is required');
      if (typeof values.url !== 'string') throw new UsageError('--url is required');
      const added = await admin.call('webhooks.add', {
        platform: values.platform,
        url: values.url,
        ...(values.event !== undefined ? { events: values.event as string[] } : {}),
      });
      const document = { id: added.id, platform: added.platform, url: added.url, events: added.events, secret: added.secret };
      io.out(values.json ? JSON.stringify(document) : JSON.stringify(document, null, 2));
      if (!values.json) io.err('Store the secret now: receivers verify deliveries with it, and coregate cannot show it again.');
      return 0;
    }
    case 'list': {
      const { values } = parse(rest, { platform: { type: 'string' } }, 0);
      if (values.help) return (io.out(WEBHOOKS_HELP), 0);
      if (typeof values.platform !== 'string') throw new UsageError('--platform is required');
      const endpoints = await admin.call('webhooks.list', { platform: values.platform });
      if (values.json) io.out(JSON.stringify(endpoints));
      else if (endpoints.length === 0) io.err(`no webhook endpoints on platform "${values.platform}"`);
      else {
        io.out(
          table(
            ['ID', 'URL', 'EVENTS', 'ENABLED', 'DISABLED_REASON', 'CREATED_AT'],
            endpoints.map((e) => [e.id, e.url, e.events.length ? e.events.join(',') : '(all)', String(e.enabled), e.disabledReason, e.createdAt]),
          ),
        );
      }
      return 0;
    }
    case 'remove':
    case 'rotate-secret': {
      const { values, positionals } = parse(rest, {}, 1);
      if (values.help) return (io.out(WEBHOOKS_HELP), 0);
      const id = positionals[0]!;
      if (action === 'remove') {
        const result = await admin.call('webhooks.remove', { id });
        io.out(values.json ? JSON.stringify(result) : `removed webhook endpoint ${id} and its deliveries`);
      } else {
        const rotated = await admin.call('webhooks.rotate-secret', { id });
        io.out(values.json ? JSON.stringify(rotated) : JSON.stringify(rotated, null, 2));
        if (!values.json) io.err(`Store the new secret now; deliveries are signed with the old one too until ${rotated.previousSecretValidUntil}.`);
      }
      return 0;
    }
    case 'deliveries': {
      const { values } = parse(rest, { platform: { type: 'string' }, limit: { type: 'string' } }, 0);
      if (values.help) return (io.out(WEBHOOKS_HELP), 0);
      if (typeof values.platform !== 'string') throw new UsageError('--platform is required');
      const deliveries = await admin.call('webhooks.deliveries', { platform: values.platform, ...(values.limit !== undefined ? { limit: values.limit as string } : {}) });
      if (values.json) io.out(JSON.stringify(deliveries));
      else if (deliveries.length === 0) io.err(`no webhook deliveries on platform "${values.platform}"`);
      else {
        io.out(
          table(
            ['ID', 'EVENT_TYPE', 'URL', 'STATUS', 'ATTEMPTS', 'LAST_HTTP_STATUS', 'NEXT_ATTEMPT_AT'],
            deliveries.map((d) => [d.id, d.eventType, d.url, d.status, d.attempts, d.lastStatus, d.nextAttemptAt]),
          ),
        );
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown webhooks command "${action}"\n${WEBHOOKS_HELP}`);
  }
}
