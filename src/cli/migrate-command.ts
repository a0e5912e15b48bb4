/** `coregate migrate`: applies pending database migrations (docs/behaviour.md#cli-commands). */
import { Command } from 'commander';
import { examples, printData, withJson, type AdminContext } from './program.js';

export function migrateCommand(context: AdminContext): Command {
  return withJson(
    new Command('migrate')
      .summary('apply pending database migrations')
      .description('Applies pending database migrations (every command that opens the database applies them first).')
      .usage('[--json]'),
  )
    .addHelpText('after', examples('DATABASE_URL=postgres://coregate@db/coregate coregate migrate'))
    .action(async (options: { json?: boolean }) => {
      const report = await (await context.admin()).call('migrate', {});
      printData(context.io, options.json, report, () =>
        report.applied.length
          ? `applied ${report.applied.map((m) => m.version).join(', ')}; schema version ${report.current}`
          : `schema is up to date (version ${report.current})`,
      );
    });
}
