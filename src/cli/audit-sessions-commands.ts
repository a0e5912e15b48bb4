/**
 * `coregate audit list` and `coregate sessions list|revoke`: the audit log and the
 * stored associations, through the admin operations `audit.list`, `sessions.list`
 * and `sessions.revoke` (use cases `AuditReader`, `AssociationAdmin`).
 * Nothing here ever prints a delegate reference ID, sealed or not.
 */
import type { AdminClient, AssociationView } from '../server/admin-operations.js';
import { UsageError, type CliIo } from './io.js';
import { parse } from './parse-args.js';

export const AUDIT_HELP = `Usage:
  coregate audit list [--platform P] [--customer ID] [--type TYPE] [--since T] [--until T] [--limit N] [--json]

Audit log events, newest first (default limit 100, at most 10000).
--since takes an ISO-8601 date (2026-03-01, midnight UTC) or date-time with a zone
(2026-03-01T12:00:00Z, 2026-03-01T14:00:00+02:00).
--until is the same, exclusive. --type keeps one event type.
Events: token.issued, token.denied, access.denied, session.registered, session.renewed,
session.reregistration_required, session.revoked, accounts.listed, session.read, session.deregistered;
operator actions (actor operator): client.created, client.updated, client.deleted, client.disabled,
client.enabled, client.secret_rotated, key.rotated, key.revoked (for keys the kid is in REASON),
institution.added, institution.updated, institution.disabled, institution.enabled, webhook.added,
webhook.removed, webhook.secret_rotated (the endpoint id in REASON).`;

export const SESSIONS_HELP = `Usage:
  coregate sessions list --platform P [--institution ID] [--limit N] [--json]
  coregate sessions revoke --platform P --customer ID [--institution ID] [--json]

list shows a platform's registered customers (default limit 1000), at one institution or at all;
never a delegate reference ID. revoke works at --institution (default "default").
revoke deletes the association: the customerId must be registered again (audited as session.revoked).`;

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

function isHelp(action: string | undefined): boolean {
  return action === undefined || action === '--help' || action === 'help';
}

export async function auditCommand(args: string[], admin: AdminClient, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (isHelp(action)) {
    io.out(AUDIT_HELP);
    return action === undefined ? 2 : 0;
  }
  if (action !== 'list') throw new UsageError(`unknown audit command "${action}"\n${AUDIT_HELP}`);
  const { values } = parse(rest, { platform: { type: 'string' }, customer: { type: 'string' }, type: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, limit: { type: 'string' } }, 0);
  if (values.help) return (io.out(AUDIT_HELP), 0);
  const records = await admin.call('audit.list', {
    ...(values.platform !== undefined ? { platform: values.platform as string } : {}),
    ...(values.customer !== undefined ? { customerId: values.customer as string } : {}),
    ...(values.since !== undefined ? { since: values.since as string } : {}),
    ...(values.until !== undefined ? { until: values.until as string } : {}),
    ...(values.type !== undefined ? { type: values.type as string } : {}),
    ...(values.limit !== undefined ? { limit: values.limit as string } : {}),
  });
  // The server's audit view is already the allow-list of fields, in the order printed.
  if (values.json) io.out(JSON.stringify(records));
  else if (records.length === 0) io.err('no matching audit events');
  else {
    io.out(
      table(
        ['OCCURRED_AT', 'TYPE', 'OUTCOME', 'REASON', 'ACTOR', 'CLIENT_ID', 'PLATFORM', 'CUSTOMER_ID', 'REQUEST_ID'],
        records.map((r) => [r.occurredAt, r.type, r.outcome, r.reason, r.actor, r.clientId, r.platform, r.customerId, r.requestId]),
      ),
    );
  }
  return 0;
}

export async function sessionsCommand(args: string[], admin: AdminClient, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (isHelp(action)) {
    io.out(SESSIONS_HELP);
    return action === undefined ? 2 : 0;
  }
  switch (action) {
    case 'list': {
      const { values } = parse(rest, { platform: { type: 'string' }, limit: { type: 'string' }, institution: { type: 'string' } }, 0);
      if (values.help) return (io.out(SESSIONS_HELP), 0);
      if (typeof values.platform !== 'string') throw new UsageError('--platform is required');
      const { sessions, truncated } = await admin.call('sessions.list', {
        platform: values.platform,
        ...(values.limit !== undefined ? { limit: values.limit as string } : {}),
        ...(values.institution !== undefined ? { institution: values.institution as string } : {}),
      });
      if (values.json) io.out(JSON.stringify(sessions.map(sessionJson)));
      else if (sessions.length === 0) io.err(`no registered customers on platform "${values.platform}"`);
      else {
        io.out(
          table(
            ['INSTITUTION', 'CUSTOMER_ID', 'CUSTOMER_KEY', 'EXPIRES_AT', 'NEEDS_REREGISTRATION', 'CREATED_AT', 'UPDATED_AT'],
            sessions.map((s) => [s.institution, s.customerId, s.customerKey, s.expiresAt, String(s.needsReregistration), s.createdAt, s.updatedAt]),
          ),
        );
      }
      if (truncated) io.err(`only the first ${sessions.length} shown: raise --limit to see more`);
      return 0;
    }
    case 'revoke': {
      const { values } = parse(rest, { platform: { type: 'string' }, customer: { type: 'string' }, institution: { type: 'string' } }, 0);
      if (values.help) return (io.out(SESSIONS_HELP), 0);
      if (typeof values.platform !== 'string') throw new UsageError('--platform is required');
      if (typeof values.customer !== 'string') throw new UsageError('--customer is required');
      const result = await admin.call('sessions.revoke', {
        platform: values.platform,
        customerId: values.customer,
        ...(values.institution !== undefined ? { institution: values.institution as string } : {}),
      });
      io.out(values.json ? JSON.stringify(result) : `revoked: customer "${values.customer}" of platform "${values.platform}" must be registered again`);
      return 0;
    }
    default:
      throw new UsageError(`unknown sessions command "${action}"\n${SESSIONS_HELP}`);
  }
}
