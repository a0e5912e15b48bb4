/**
 * `coregate sessions list|revoke`: a platform's registered customers — the stored
 * associations — through the admin operations `associations.list` and
 * `associations.revoke` (use case `AssociationAdmin`). The command keeps the
 * contract's word "sessions"; nothing here ever prints a delegate reference ID.
 */
import { Command } from 'commander';
import { MAX_ASSOCIATIONS_LIMIT } from '../app/association-admin.js';
import type { AssociationView } from '../server/admin-operations.js';
import { loadConfig, type Config } from '../config/config.js';
import { UsageError } from './io.js';
import { examples, fields, printData, required, table, wholeNumber, withJson, type AdminContext } from './program.js';
import { importRegistrations, summaryText } from './sessions-import.js';

/** Registrations in flight at once by default: the SDK's own default. */
const IMPORT_CONCURRENCY = 16;

/** Where the server this environment describes is reached: its issuer, else its listening address. */
function gatewayUrl(config: Config): string {
  if (config.issuer !== undefined) return config.issuer;
  const host = ['0.0.0.0', '::', '[::]'].includes(config.host)
    ? '127.0.0.1'
    : config.host.includes(':')
      ? `[${config.host}]`
      : config.host;
  return `${config.tlsCertFile === undefined ? 'http' : 'https'}://${host}:${config.port}`;
}

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
    .summary("a platform's registered customers: list, revoke, import")
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
      .option(
        '--limit <N>',
        `at most N customers (default: 1000, at most ${MAX_ASSOCIATIONS_LIMIT})`,
        wholeNumber(1, MAX_ASSOCIATIONS_LIMIT),
      ),
  )
    .addHelpText(
      'after',
      examples(
        'coregate sessions list --platform acme',
        'coregate sessions list --platform acme --institution bank-b --json',
      ),
    )
    .action(async (options: { platform?: string; institution?: string; limit?: number; json?: boolean }) => {
      const platform = required(options.platform, 'platform');
      const { associations, truncated } = await (
        await context.admin()
      ).call('associations.list', {
        platform,
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
        ...(options.institution !== undefined ? { institution: options.institution } : {}),
      });
      if (!options.json && associations.length === 0) io.err(`no registered customers on platform "${platform}"`);
      else {
        printData(io, options.json, associations.map(associationJson), () =>
          table(
            [
              'INSTITUTION',
              'CUSTOMER_ID',
              'CUSTOMER_KEY',
              'EXPIRES_AT',
              'NEEDS_REREGISTRATION',
              'CREATED_AT',
              'UPDATED_AT',
            ],
            associations.map((a) => [
              a.institution,
              a.customerId,
              a.customerKey,
              a.expiresAt,
              a.needsReregistration,
              a.createdAt,
              a.updatedAt,
            ]),
          ),
        );
      }
      if (truncated) io.err(`only the first ${associations.length} shown: raise --limit to see more`);
    });

  withJson(
    sessions
      .command('show')
      .summary('one registered customer: status, registered and renewed times, last failure')
      .description(
        "One customer's registration: whether it needs registering again, when it was registered and last renewed, and the last failure the audit log holds for it.",
      )
      .usage('--platform P --customer ID [--institution ID] [--json]')
      .option('--platform <P>', 'the platform (required)')
      .option('--customer <ID>', 'the customerId (required)')
      .option('--institution <ID>', 'where it is registered (default: "default")'),
  )
    .addHelpText('after', examples('coregate sessions show --platform acme --customer ada'))
    .action(async (options: { platform?: string; customer?: string; institution?: string; json?: boolean }) => {
      const platform = required(options.platform, 'platform');
      const customerId = required(options.customer, 'customer');
      const shown = await (
        await context.admin()
      ).call('associations.show', {
        platform,
        customerId,
        ...(options.institution !== undefined ? { institution: options.institution } : {}),
      });
      printData(io, options.json, { ...associationJson(shown), lastFailure: shown.lastFailure }, () =>
        fields([
          ['institution', shown.institution],
          ['customer', shown.customerId],
          ['status', shown.needsReregistration ? 'needs registering again' : 'registered'],
          ['registered', shown.createdAt],
          ['last renewed', shown.updatedAt],
          ['core session until', shown.expiresAt],
          [
            'last failure',
            shown.lastFailure
              ? `${shown.lastFailure.type} ${shown.lastFailure.reason ?? ''} at ${shown.lastFailure.occurredAt}`
              : null,
          ],
        ]),
      );
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
      const result = await (
        await context.admin()
      ).call('associations.revoke', {
        platform,
        customerId,
        ...(options.institution !== undefined ? { institution: options.institution } : {}),
      });
      printData(
        io,
        options.json,
        result,
        () => `revoked: customer "${customerId}" of platform "${platform}" must be registered again`,
      );
    });
  withJson(
    sessions
      .command('import')
      .summary("register a platform's existing customers from a JSON Lines file")
      .description(
        "Registers customers from a JSON Lines file, one POST /core/sessions body a line, as the platform whose client credentials are in --credentials (a JSON file with client_id and client_secret, as `clients create --json` prints them). Writes one JSON line per input line (line, customerId, ok, customerKey or the error's status, reason and message; never the personal data sent) and a summary. 429/503 answers slow the import down, never fail a line. Exit status 1 when a line was not registered.",
      )
      .usage('--file FILE --credentials FILE [--url URL] [--concurrency N] [--results FILE] [--json]')
      .option('--file <FILE>', 'the registrations, JSON Lines (required; - reads stdin)')
      .option('--credentials <FILE>', "the platform client's credentials file (required)")
      .option('--url <URL>', "coregate's URL (default: COREGATE_ISSUER, else http://HOST:PORT)")
      .option(
        '--concurrency <N>',
        `registrations in flight at once (default: ${IMPORT_CONCURRENCY})`,
        wholeNumber(1, 256),
      )
      .option('--results <FILE>', 'write the per-line results there (default: stdout)'),
  )
    .addHelpText(
      'after',
      examples(
        'coregate sessions import --file customers.jsonl --credentials acme-client.json > results.jsonl',
        'coregate sessions import --file customers.jsonl --credentials acme-client.json --url https://gw.bank.example --results results.jsonl --json',
      ),
    )
    .action(
      async (options: {
        file?: string;
        credentials?: string;
        url?: string;
        concurrency?: number;
        results?: string;
        json?: boolean;
      }) => {
        const file = required(options.file, 'file');
        const credentials = required(options.credentials, 'credentials');
        if (options.json && options.results === undefined)
          throw new UsageError('--json prints the summary on stdout: give --results FILE for the per-line results');
        const url = options.url ?? gatewayUrl(loadConfig());
        const stop = new AbortController();
        const interrupt = () => stop.abort(new Error('interrupted'));
        process.once('SIGINT', interrupt);
        process.once('SIGTERM', interrupt);
        try {
          const summary = await importRegistrations(
            {
              file,
              credentials,
              url,
              concurrency: options.concurrency ?? IMPORT_CONCURRENCY,
              results: options.results,
            },
            io,
            stop.signal,
          );
          // Results on stdout keep it JSON Lines: the summary then goes to stderr.
          if (options.json === true || options.results !== undefined)
            printData(io, options.json, summary, () => summaryText(summary));
          else io.err(summaryText(summary));
          if (summary.failed > 0 || summary.stopped !== undefined) context.exitCode = 1;
        } finally {
          process.off('SIGINT', interrupt);
          process.off('SIGTERM', interrupt);
        }
      },
    );
  return sessions;
}
