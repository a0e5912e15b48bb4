/**
 * `coregate serve`: the service (`npm start`); `--port`/`--host` stand for PORT/HOST. A refused
 * `--port` names the flag, not the setting. npm takes flags before `--` for itself
 * (`npm start --port 9000` hands serve a bare `9000`): a stray word says so.
 */
import { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { settingsHelp } from '../config/settings-table.js';
import { UsageError } from './io.js';
import { examples, wholeNumber, type CommandContext } from './program.js';

export function serveCommand(context: CommandContext): Command {
  return (
    new Command('serve')
      .summary('run the service (npm start)')
      .description(
        'Runs the service (npm start). --port and --host override PORT and HOST. Under a supervisor run `node bin/coregate serve` itself, not npm start (docs/operations.md).',
      )
      .usage('[--port PORT] [--host ADDRESS]')
      // Takes stray words, to answer them with the npm hint below rather than commander's "too many arguments".
      .argument('[words...]')
      .option('--port <PORT>', 'listen port, instead of PORT (0 picks a free one)', wholeNumber(0, 65_535))
      .option('--host <ADDRESS>', 'listen address, instead of HOST')
      .addHelpText(
        'after',
        () =>
          `${examples('coregate serve', 'coregate serve --port 9000 --host 127.0.0.1')}\n\n` +
          `Settings (environment variables; .env.example lists them all):\n${settingsHelp()}`,
      )
      .action(async (words: string[], options: { port?: number; host?: string }) => {
        if (words.length > 0)
          throw new UsageError(
            `serve takes no arguments, got ${JSON.stringify(words.join(' '))}; with npm start, put coregate's flags after --: npm start -- --port 9000`,
          );
        const config = loadConfig({
          ...process.env,
          ...(options.port !== undefined ? { PORT: String(options.port) } : {}),
          ...(options.host !== undefined ? { HOST: options.host } : {}),
        });
        // Loaded here, not at start-up: `coregate --help` and other commands need none of it.
        const { serve } = await import('../server/main.js');
        context.exitCode = await serve(config);
      })
  );
}
