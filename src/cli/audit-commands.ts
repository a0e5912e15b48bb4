/**
 * `coregate audit list`: the audit log, newest first, through the admin operation
 * `audit.list` (use case `AuditReader`). The server's view is the allow-list of fields.
 */
import { Command } from 'commander';
import { MAX_AUDIT_LIMIT } from '../app/read-audit-log.js';
import { examples, printData, table, wholeNumber, withJson, type AdminContext } from './program.js';

const AUDIT_EVENTS = `Event types (--type): token.issued, token.denied, access.denied, session.registered,
session.renewed, session.reregistration_required, session.revoked, accounts.listed, transactions.listed, transactions.synced, session.read,
session.deregistered; operator actions (actor operator): client.created, client.updated,
client.deleted, client.disabled, client.enabled, client.secret_rotated, key.rotated, key.revoked
(the kid in REASON), institution.added, institution.updated, institution.disabled,
institution.enabled, webhook.added, webhook.removed, webhook.secret_rotated (the endpoint id in REASON);
console sign-in: console.link_created, console.signed_in. Console actions have the actor operator:NAME.`;

interface AuditOptions {
  platform?: string;
  customer?: string;
  type?: string;
  since?: string;
  until?: string;
  limit?: number;
  actor?: string;
  before?: string;
  json?: boolean;
}

export function auditCommand(context: AdminContext): Command {
  const { io } = context;
  const audit = new Command('audit')
    .summary('the audit log, newest first')
    .description('The audit log: what clients and operators did.')
    .usage('list [options]');
  withJson(
    audit
      .command('list')
      .summary('audit log events, newest first')
      .description(
        'Audit log events, newest first. --since and --until take an ISO-8601 date (2026-03-01, midnight UTC) or a date-time with a zone (2026-03-01T12:00:00Z, 2026-03-01T14:00:00+02:00).',
      )
      .usage(
        '[--platform P] [--customer ID] [--type TYPE] [--actor A] [--since T] [--until T] [--limit N] [--before ID] [--json]',
      )
      .option('--platform <P>', "only this platform's events")
      .option('--customer <ID>', "only this customerId's events")
      .option('--type <TYPE>', 'only events of this type (listed below)')
      .option('--actor <A>', 'only events by this actor: client, operator (the CLI) or operator:NAME (the console)')
      .option('--since <T>', 'events at or after T')
      .option('--until <T>', 'events before T')
      .option(
        '--limit <N>',
        `at most N events (default: 100, at most ${MAX_AUDIT_LIMIT})`,
        wholeNumber(1, MAX_AUDIT_LIMIT),
      )
      .option('--before <ID>', 'the next page: events listed after the event ID (the last ID of the previous page)'),
  )
    .addHelpText(
      'after',
      `\n${AUDIT_EVENTS}\n${examples('coregate audit list --platform acme --since 2026-03-01 --limit 20', 'coregate audit list --type key.revoked --json')}`,
    )
    .action(async (options: AuditOptions) => {
      const records = await (
        await context.admin()
      ).call('audit.list', {
        ...(options.platform !== undefined ? { platform: options.platform } : {}),
        ...(options.customer !== undefined ? { customerId: options.customer } : {}),
        ...(options.since !== undefined ? { since: options.since } : {}),
        ...(options.until !== undefined ? { until: options.until } : {}),
        ...(options.type !== undefined ? { type: options.type } : {}),
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
        ...(options.actor !== undefined ? { actor: options.actor } : {}),
        ...(options.before !== undefined ? { before: options.before } : {}),
      });
      if (!options.json && records.length === 0) io.err('no matching audit events');
      else {
        printData(io, options.json, records, () =>
          table(
            [
              'OCCURRED_AT',
              'TYPE',
              'OUTCOME',
              'REASON',
              'ACTOR',
              'CLIENT_ID',
              'PLATFORM',
              'INSTITUTION',
              'CUSTOMER_ID',
              'REQUEST_ID',
              'ID',
            ],
            records.map((r) => [
              r.occurredAt,
              r.type,
              r.outcome,
              r.reason,
              r.actor,
              r.clientId,
              r.platform,
              r.institution,
              r.customerId,
              r.requestId,
              r.id,
            ]),
          ),
        );
      }
    });
  return audit;
}
