/**
 * `coregate webhooks add|list|remove|enable|disable|rotate-secret|deliveries` (docs/operations.md),
 * through the admin operations `webhooks.*` (use case `WebhookAdmin`). A secret
 * is printed once, by `add` and `rotate-secret`; nothing else ever shows it.
 */
import { Command } from 'commander';
import type { AdminClient } from '../server/admin-operations.js';
import { MAX_DELIVERIES_LIMIT } from '../app/webhook-admin.js';
import {
  examples,
  fields,
  printData,
  repeatable,
  required,
  table,
  wholeNumber,
  withJson,
  type AdminContext,
} from './program.js';

const EVENT_TYPES = 'customer.registered, customer.reregistration_required, customer.deregistered';

/**
 * A URL was checked against the policy of the process that ran the command. Through the
 * server's admin socket that is the server's own. A command on its own database applies
 * its own configuration: when that is laxer than production's strictest, a server may
 * refuse at send time what the command accepted, and the operator is told so.
 */
async function policyNote(admin: AdminClient): Promise<string | undefined> {
  const policy = await admin.call('webhooks.policy', {});
  if (policy.server || (policy.production && !policy.allowPrivate)) return undefined;
  const checked = policy.production
    ? 'production mode with COREGATE_WEBHOOK_ALLOW_PRIVATE=true'
    : 'development mode (http:// and private addresses accepted)';
  return `note: the URL was checked under this command's policy, ${checked}; the server checks every delivery again under its own when it sends, and fails those its policy refuses`;
}

export function webhooksCommand(context: AdminContext): Command {
  const { io } = context;
  const webhooks = new Command('webhooks')
    .summary("a platform's webhook receivers: add, list, remove, enable, disable, rotate-secret, deliveries")
    .description("A platform's webhook receivers (Standard Webhooks signatures).")
    .usage('<command> [options]');

  withJson(
    webhooks
      .command('add')
      .summary('add a receiver and print its signing secret once')
      .description(`Adds a receiver and prints its signing secret (whsec_…) once.\nEvent types: ${EVENT_TYPES}.`)
      .usage('--platform P --url URL [--event TYPE]... [--json]')
      .option('--platform <P>', 'the platform whose events it receives (required)')
      .option('--url <URL>', 'where deliveries are POSTed (required; https:// in production)')
      .option('--event <TYPE>', 'an event type to send, repeatable (default: every type)', repeatable),
  )
    .addHelpText(
      'after',
      examples(
        'coregate webhooks add --platform acme --url https://hooks.acme.example/coregate',
        'coregate webhooks add --platform acme --url https://hooks.acme.example/coregate --event customer.deregistered --json',
      ),
    )
    .action(async (options: { platform?: string; url?: string; event?: string[]; json?: boolean }) => {
      const platform = required(options.platform, 'platform');
      const url = required(options.url, 'url');
      const admin = await context.admin();
      const added = await admin.call('webhooks.add', {
        platform,
        url,
        ...(options.event !== undefined ? { events: options.event } : {}),
      });
      const document = {
        id: added.id,
        platform: added.platform,
        url: added.url,
        events: added.events,
        secret: added.secret,
      };
      printData(io, options.json, document, () =>
        fields([
          ['id', added.id],
          ['platform', added.platform],
          ['url', added.url],
          ['events', added.events.length ? added.events.join(' ') : '(all)'],
          ['secret', added.secret],
        ]),
      );
      io.err('Store the secret now: receivers verify deliveries with it, and coregate cannot show it again.');
      const note = await policyNote(admin);
      if (note) io.err(note);
    });

  withJson(
    webhooks
      .command('list')
      .summary("a platform's receivers")
      .description("Lists a platform's receivers (never their secrets).")
      .usage('--platform P [--json]')
      .option('--platform <P>', 'the platform (required)'),
  )
    .addHelpText('after', examples('coregate webhooks list --platform acme'))
    .action(async (options: { platform?: string; json?: boolean }) => {
      const platform = required(options.platform, 'platform');
      const endpoints = await (await context.admin()).call('webhooks.list', { platform });
      if (!options.json && endpoints.length === 0) io.err(`no webhook endpoints on platform "${platform}"`);
      else {
        printData(io, options.json, endpoints, () =>
          table(
            ['ID', 'URL', 'EVENTS', 'ENABLED', 'DISABLED_REASON', 'CREATED_AT'],
            endpoints.map((e) => [
              e.id,
              e.url,
              e.events.length ? e.events.join(',') : '(all)',
              e.enabled,
              e.disabledReason,
              e.createdAt,
            ]),
          ),
        );
      }
    });

  withJson(
    webhooks
      .command('remove')
      .summary('remove a receiver and its deliveries')
      .description('Removes a receiver and its deliveries.')
      .usage('ID [--json]')
      .argument('<ID>', 'the endpoint ID, as webhooks list shows it'),
  )
    .addHelpText('after', examples('coregate webhooks remove wh_Q2x8bVd0TnJ5a0lp'))
    .action(async (id: string, options: { json?: boolean }) => {
      const result = await (await context.admin()).call('webhooks.remove', { id });
      printData(io, options.json, result, () => `removed webhook endpoint ${id} and its deliveries`);
    });

  withJson(
    webhooks
      .command('enable')
      .summary('send to a receiver again (after a 410 Gone or disable)')
      .description(
        'Sends to a receiver again, with its id and secret unchanged: after it answered 410 Gone, or after webhooks disable. Its URL is checked as when it was added; events recorded while it was disabled are not sent.',
      )
      .usage('ID [--json]')
      .argument('<ID>', 'the endpoint ID, as webhooks list shows it'),
  )
    .addHelpText('after', examples('coregate webhooks enable wh_Q2x8bVd0TnJ5a0lp'))
    .action(async (id: string, options: { json?: boolean }) => {
      const admin = await context.admin();
      const endpoint = await admin.call('webhooks.enable', { id });
      io.out(options.json ? JSON.stringify(endpoint) : `enabled webhook endpoint ${id} (${endpoint.url})`);
      const note = await policyNote(admin);
      if (note) io.err(note);
    });

  withJson(
    webhooks
      .command('disable')
      .summary('stop sending to a receiver, keeping it')
      .description(
        'Stops sending to a receiver; its pending deliveries fail. webhooks enable sends to it again, with the same id and secret.',
      )
      .usage('ID [--json]')
      .argument('<ID>', 'the endpoint ID, as webhooks list shows it'),
  )
    .addHelpText('after', examples('coregate webhooks disable wh_Q2x8bVd0TnJ5a0lp'))
    .action(async (id: string, options: { json?: boolean }) => {
      const endpoint = await (await context.admin()).call('webhooks.disable', { id });
      io.out(
        options.json
          ? JSON.stringify(endpoint)
          : `disabled webhook endpoint ${id} (${endpoint.url}); its pending deliveries failed`,
      );
    });

  withJson(
    webhooks
      .command('rotate-secret')
      .summary('a new signing secret, printed once')
      .description('Prints a new signing secret once; deliveries are signed with both secrets for 24 hours.')
      .usage('ID [--json]')
      .argument('<ID>', 'the endpoint ID, as webhooks list shows it'),
  )
    .addHelpText('after', examples('coregate webhooks rotate-secret wh_Q2x8bVd0TnJ5a0lp'))
    .action(async (id: string, options: { json?: boolean }) => {
      const rotated = await (await context.admin()).call('webhooks.rotate-secret', { id });
      printData(io, options.json, rotated, () =>
        fields([
          ['id', rotated.id],
          ['secret', rotated.secret],
          ['previous_secret_valid_until', rotated.previousSecretValidUntil],
        ]),
      );
      io.err(
        `Store the new secret now; deliveries are signed with the old one too until ${rotated.previousSecretValidUntil}.`,
      );
    });

  withJson(
    webhooks
      .command('deliveries')
      .summary("a platform's deliveries, newest first")
      .description(
        "A platform's deliveries, newest first: status pending, delivered or failed, attempts, next attempt, and why the last attempt failed.",
      )
      .usage('--platform P [--limit N] [--json]')
      .option('--platform <P>', 'the platform (required)')
      .option(
        '--limit <N>',
        `at most N deliveries (default: 50, at most ${MAX_DELIVERIES_LIMIT})`,
        wholeNumber(1, MAX_DELIVERIES_LIMIT),
      ),
  )
    .addHelpText('after', examples('coregate webhooks deliveries --platform acme --limit 10'))
    .action(async (options: { platform?: string; limit?: number; json?: boolean }) => {
      const platform = required(options.platform, 'platform');
      const deliveries = await (
        await context.admin()
      ).call('webhooks.deliveries', { platform, ...(options.limit !== undefined ? { limit: options.limit } : {}) });
      if (!options.json && deliveries.length === 0) io.err(`no webhook deliveries on platform "${platform}"`);
      else {
        printData(io, options.json, deliveries, () =>
          table(
            ['ID', 'EVENT_TYPE', 'URL', 'STATUS', 'ATTEMPTS', 'LAST_HTTP_STATUS', 'NEXT_ATTEMPT_AT', 'REASON'],
            deliveries.map((d) => [
              d.id,
              d.eventType,
              d.url,
              d.status,
              d.attempts,
              d.lastStatus,
              d.nextAttemptAt,
              d.reason,
            ]),
          ),
        );
      }
    });

  withJson(
    webhooks
      .command('retry')
      .summary('send a failed delivery again')
      .description(
        'Puts a failed delivery back in the queue, due now; its attempts count on. Its endpoint must be enabled (webhooks enable ID first).',
      )
      .usage('DELIVERY_ID [--json]')
      .argument('<DELIVERY_ID>', 'the delivery, as webhooks deliveries shows it'),
  )
    .addHelpText('after', examples('coregate webhooks deliveries --platform acme', 'coregate webhooks retry dlv_0123'))
    .action(async (id: string, options: { json?: boolean }) => {
      const retried = await (await context.admin()).call('webhooks.retry', { id });
      printData(io, options.json, retried, () => `delivery ${retried.id} is queued again`);
    });
  return webhooks;
}
