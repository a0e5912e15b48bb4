/**
 * `coregate audit list` and `coregate sessions list|revoke`: the audit log and the
 * stored associations, through the admin operations `audit.list`, `sessions.list`
 * and `sessions.revoke` (use cases `AuditReader`, `AssociationAdmin`).
 * Nothing here ever prints a delegate reference ID, sealed or not.
 */
import { Command } from 'commander';
import type { AssociationView } from '../server/admin-operations.js';
import { examples, required, withJson, type AdminContext } from './program.js';

const AUDIT_EVENTS = `Event types (--type): token.issued, token.denied, access.denied, session.registered,
session.renewed, session.reregistration_required, session.revoked, accounts.listed, session.read,
session.deregistered; operator actions (actor operator): client.created, client.updated,
client.deleted, client.disabled, client.enabled, client.secret_rotated, key.rotated, key.revoked
(the kid in REASON), institution.added, institution.updated, institution.disabled,
institution.enabled, webhook.added, webhook.removed, webhook.secret_rotated (the endpoint id in REASON).`;

/** One association in the CLI's JSON: an explicit allow-list of fields. */
function sessionJson(session: AssociationView) {
  return {
    institution: session.institution,
    customerId: session.customerId,
    customerKey: session.customerKey,
    expiresAt: session.expiresAt,
    needsReregistration: session.needsReregistration,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

function table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | null>>): string {
  return [header, ...rows.map((row) => row.map((cell) => cell ?? '-'))].map((row) => row.join('\t')).join('\n');
}

interface AuditOptions {
  platform?: string;
  customer?: string;
  type?: string;
  since?: string;
  until?: string;
  limit?: string;
  json?: boolean;
}

export function auditCommand(context: AdminContext): Command {
  const { io } = context;
  const audit = new Command('audit').summary('the audit log, newest first').description('The audit log: what clients and operators did.').usage('list [options]');
  withJson(
    audit
      .command('list')
      .summary('audit log events, newest first')
      .description(
        'Audit log events, newest first. --since and --until take an ISO-8601 date (2026-03-01, midnight UTC) or a date-time with a zone (2026-03-01T12:00:00Z, 2026-03-01T14:00:00+02:00).',
      )
      .usage('[--platform P] [--customer ID] [--type TYPE] [--since T] [--until T] [--limit N] [--json]')
      .option('--platform <P>', "only this platform's events")
      .option('--customer <ID>', "only this customerId's events")
      .option('--type <TYPE>', 'only events of this type (listed below)')
      .option('--since <T>', 'events at or after T')
      .option('--until <T>', 'events before T')
      .option('--limit <N>', 'at most N events (default: 100, at most 10000)'),
  )
    .addHelpText('after', `\n${AUDIT_EVENTS}\n${examples('coregate audit list --platform acme --since 2026-03-01 --limit 20', 'coregate audit list --type key.revoked --json')}`)
    .action(async (options: AuditOptions) => {
      const records = await (await context.admin()).call('audit.list', {
        ...(options.platform !== undefined ? { platform: options.platform } : {}),
        ...(options.customer !== undefined ? { customerId: options.customer } : {}),
        ...(options.since !== undefined ? { since: options.since } : {}),
        ...(options.until !== undefined ? { until: options.until } : {}),
        ...(options.type !== undefined ? { type: options.type } : {}),
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
      });
      // The server's audit view is already the allow-list of fields, in the order printed.
      if (options.json) io.out(JSON.stringify(records));
      else if (records.length === 0) io.err('no matching audit events');
      else {
        io.out(
          table(
            ['OCCURRED_AT', 'TYPE', 'OUTCOME', 'REASON', 'ACTOR', 'CLIENT_ID', 'PLATFORM', 'CUSTOMER_ID', 'REQUEST_ID'],
            records.map((r) => [r.occurredAt, r.type, r.outcome, r.reason, r.actor, r.clientId, r.platform, r.customerId, r.requestId]),
          ),
        );
      }
    });
  return audit;
}

export function sessionsCommand(context: AdminContext): Command {
  const { io } = context;
  const sessions = new Command('sessions')
    .summary("a platform's registered customers: list, revoke")
    .description("A platform's registered customers (associations). Never shows a delegate reference ID.")
    .usage('<command> [options]');

  withJson(
    sessions
      .command('list')
      .summary("a platform's registered customers")
      .description("Lists a platform's registered customers, at one institution or at all.")
      .usage('--platform P [--institution ID] [--limit N] [--json]')
      .option('--platform <P>', 'the platform (required)')
      .option('--institution <ID>', 'only customers at this institution')
      .option('--limit <N>', 'at most N customers (default: 1000)'),
  )
    .addHelpText('after', examples('coregate sessions list --platform acme', 'coregate sessions list --platform acme --institution bank-b --json'))
    .action(async (options: { platform?: string; institution?: string; limit?: string; json?: boolean }) => {
      const platform = required(options.platform, 'platform');
      const { sessions: found, truncated } = await (await context.admin()).call('sessions.list', {
        platform,
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
        ...(options.institution !== undefined ? { institution: options.institution } : {}),
      });
      if (options.json) io.out(JSON.stringify(found.map(sessionJson)));
      else if (found.length === 0) io.err(`no registered customers on platform "${platform}"`);
      else {
        io.out(
          table(
            ['INSTITUTION', 'CUSTOMER_ID', 'CUSTOMER_KEY', 'EXPIRES_AT', 'NEEDS_REREGISTRATION', 'CREATED_AT', 'UPDATED_AT'],
            found.map((s) => [s.institution, s.customerId, s.customerKey, s.expiresAt, String(s.needsReregistration), s.createdAt, s.updatedAt]),
          ),
        );
      }
      if (truncated) io.err(`only the first ${found.length} shown: raise --limit to see more`);
    });

  withJson(
    sessions
      .command('revoke')
      .summary('delete a registration: the customer must register again')
      .description('Deletes the association: the customerId must be registered again (audited as session.revoked).')
      .usage('--platform P --customer ID [--institution ID] [--json]')
      .option('--platform <P>', 'the platform (required)')
      .option('--customer <ID>', 'the customerId (required)')
      .option('--institution <ID>', 'where it is registered (default: "default")'),
  )
    .addHelpText('after', examples('coregate sessions revoke --platform acme --customer ada'))
    .action(async (options: { platform?: string; customer?: string; institution?: string; json?: boolean }) => {
      const platform = required(options.platform, 'platform');
      const customerId = required(options.customer, 'customer');
      const result = await (await context.admin()).call('sessions.revoke', {
        platform,
        customerId,
        ...(options.institution !== undefined ? { institution: options.institution } : {}),
      });
      io.out(options.json ? JSON.stringify(result) : `revoked: customer "${customerId}" of platform "${platform}" must be registered again`);
    });
  return sessions;
}
