/**
 * `coregate sessions list|revoke`: a platform's registered customers — the stored
 * associations — through the admin operations `associations.list` and
 * `associations.revoke` (use case `AssociationAdmin`). The command keeps the
 * contract's word "sessions"; nothing here ever prints a delegate reference ID.
 */
import { Command } from 'commander';
import { MAX_ASSOCIATIONS_LIMIT } from '../app/association-admin.js';
import type { AssociationView } from '../server/admin-operations.js';
import { examples, printData, required, table, wholeNumber, withJson, type AdminContext } from './program.js';

/** One association in the CLI's JSON: an explicit allow-list of fields. */
function associationJson(association: AssociationView) {
  return {
    institution: association.institution,
    customerId: association.customerId,
    customerKey: association.customerKey,
    expiresAt: association.expiresAt,
    needsReregistration: association.needsReregistration,
    createdAt: association.createdAt,
    updatedAt: association.updatedAt,
  };
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
      .option('--limit <N>', `at most N customers (default: 1000, at most ${MAX_ASSOCIATIONS_LIMIT})`, wholeNumber(1, MAX_ASSOCIATIONS_LIMIT)),
  )
    .addHelpText('after', examples('coregate sessions list --platform acme', 'coregate sessions list --platform acme --institution bank-b --json'))
    .action(async (options: { platform?: string; institution?: string; limit?: number; json?: boolean }) => {
      const platform = required(options.platform, 'platform');
      const { associations, truncated } = await (await context.admin()).call('associations.list', {
        platform,
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
        ...(options.institution !== undefined ? { institution: options.institution } : {}),
      });
      if (!options.json && associations.length === 0) io.err(`no registered customers on platform "${platform}"`);
      else {
        printData(io, options.json, associations.map(associationJson), () =>
          table(
            ['INSTITUTION', 'CUSTOMER_ID', 'CUSTOMER_KEY', 'EXPIRES_AT', 'NEEDS_REREGISTRATION', 'CREATED_AT', 'UPDATED_AT'],
            associations.map((a) => [a.institution, a.customerId, a.customerKey, a.expiresAt, a.needsReregistration, a.createdAt, a.updatedAt]),
          ),
        );
      }
      if (truncated) io.err(`only the first ${associations.length} shown: raise --limit to see more`);
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
      const result = await (await context.admin()).call('associations.revoke', {
        platform,
        customerId,
        ...(options.institution !== undefined ? { institution: options.institution } : {}),
      });
      printData(io, options.json, result, () => `revoked: customer "${customerId}" of platform "${platform}" must be registered again`);
    });
  return sessions;
}
