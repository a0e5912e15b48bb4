/**
 * `coregate console link`: a single-use sign-in link to the operator console
 * (docs/operations.md#console), through the admin operation `console.link`.
 */
import { Command } from 'commander';
import { DEFAULT_LINK_TTL_SECONDS, MAX_LINK_TTL_SECONDS } from '../domain/console-session.js';
import { examples, printData, required, wholeNumber, withJson, type AdminContext } from './program.js';

export function consoleCommand(context: AdminContext): Command {
  const { io } = context;
  const console = new Command('console')
    .summary('the operator console: sign-in links')
    .description('The operator console served on COREGATE_CONSOLE_PORT at /console.')
    .usage('link --operator NAME [options]');

  withJson(
    console
      .command('link')
      .summary('print a single-use sign-in link for an operator')
      .description(
        `Prints a URL that signs NAME in to the console once. It is valid ${DEFAULT_LINK_TTL_SECONDS / 60} minutes unless --ttl-seconds says otherwise; the console's writes are audited with the actor operator:NAME.`,
      )
      .usage('--operator NAME [--ttl-seconds N] [--json]')
      .option('--operator <NAME>', 'who signs in: letters, digits and . _ @ - (the audit log names them)')
      .option(
        '--ttl-seconds <N>',
        `how long the link is valid (default: ${DEFAULT_LINK_TTL_SECONDS}, at most ${MAX_LINK_TTL_SECONDS})`,
        wholeNumber(1, MAX_LINK_TTL_SECONDS),
      ),
  )
    .addHelpText(
      'after',
      examples(
        'coregate console link --operator alice',
        'coregate console link --operator bob --ttl-seconds 120 --json',
      ),
    )
    .action(async (options: { operator?: string; ttlSeconds?: number; json?: boolean }) => {
      const operator = required(options.operator, 'operator');
      const link = await (
        await context.admin()
      ).call('console.link', {
        operator,
        ...(options.ttlSeconds !== undefined ? { ttlSeconds: options.ttlSeconds } : {}),
      });
      printData(
        io,
        options.json,
        { url: link.url, operator: link.operator, expires_at: link.expiresAt },
        () => link.url,
      );
      if (!options.json) io.err(`single use, for ${link.operator}, valid until ${link.expiresAt}`);
    });
  return console;
}
