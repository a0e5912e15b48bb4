/** `coregate serve`: the service (`npm start`); `--port`/`--host` stand for PORT/HOST and are validated like them. */
import { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { settingsHelp } from '../config/settings-table.js';
import { examples, type CommandContext } from './program.js';

export function serveCommand(context: CommandContext): Command {
  return new Command('serve')
    .summary('run the service (npm start)')
    .description(
      'Runs the service (npm start). --port and --host override PORT and HOST. Under a supervisor run `node bin/coregate serve` itself, not npm start (docs/operations.md).',
    )
    .usage('[--port PORT] [--host ADDRESS]')
    .option('--port <PORT>', 'listen port, instead of PORT (0 picks a free one)')
    .option('--host <ADDRESS>', 'listen address, instead of HOST')
    .addHelpText(
      'after',
      () =>
        `${examples('coregate serve', 'coregate serve --port 9000 --host 127.0.0.1')}\n\n` +
        `Settings (environment variables; .env.example lists them all):\n${settingsHelp()}`,
    )
    .action(async (options: { port?: string; host?: string }) => {
      const config = loadConfig({
        ...process.env,
        ...(options.port !== undefined ? { PORT: options.port } : {}),
        ...(options.host !== undefined ? { HOST: options.host } : {}),
      });
      // Loaded here, not at start-up: `coregate --help` and other commands need none of it.
      const { serve } = await import('../server/main.js');
      context.exitCode = await serve(config);
    });
}
