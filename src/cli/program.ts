/**
 * What every coregate command shares on top of commander: output through a CliIo, a usage
 * mistake as one line with a suggestion (`coregate: unknown option --jsn (did you mean --json?)`)
 * and exit status 2, and the exit status handed back instead of `process.exit`, so that
 * `main(argv, io)` runs in-process (tests call it with a captured CliIo).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { AdminClient } from '../server/admin-operations.js';
import { UsageError, type CliIo } from './io.js';

/** What an action gets: where to write, and where to leave an exit status other than 0. */
export interface CommandContext {
  readonly io: CliIo;
  exitCode: number;
}

/** A command that works on the database. */
export interface AdminContext extends CommandContext {
  /**
   * The admin client, opened on first use. Actions check their options before asking
   * for it, so a usage mistake never opens a database.
   */
  admin(): Promise<AdminClient>;
}

/** Option value collector for a flag that may be given several times (`--allow-ip A --allow-ip B`). */
export function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `--json`, taken by every command that prints data (docs/behaviour.md#cli-output). */
export function withJson(command: Command): Command {
  return command.option('--json', 'print exactly one JSON document on stdout');
}

/**
 * The parser of every numeric option (`.argParser(wholeNumber(1, 10_000))`): digits only, within
 * `[min, max]`. commander reports a refusal as `option '--limit <N>' argument 'x' is invalid.`
 * followed by this message; {@link oneLineError} turns that into
 * `coregate: --limit must be a whole number from 1 to 10000, got "x"`.
 */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const number = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
    if (!(number >= min && number <= max))
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return number;
  };
}

/**
 * The output rules of every command that prints data: with `--json` exactly one JSON
 * document on stdout, else text for people (docs/behaviour.md#cli-output). Hints and warnings
 * go to stderr.
 */
export function printData(io: CliIo, json: boolean | undefined, document: unknown, text: () => string): void {
  io.out(json === true ? JSON.stringify(document) : text());
}

/** Rows as tab-separated text under a header row; an absent value shows as `-`. */
export function table(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null | undefined>>,
): string {
  return [header, ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))))]
    .map((row) => row.join('\t'))
    .join('\n');
}

/** One record as aligned `name: value` lines; an absent value shows as `-`. */
export function fields(record: ReadonlyArray<readonly [string, string | number | boolean | null | undefined]>): string {
  const width = Math.max(...record.map(([name]) => name.length)) + 2;
  return record
    .map(([name, value]) => `${`${name}:`.padEnd(width)}${value === null || value === undefined ? '-' : String(value)}`)
    .join('\n');
}

/** A readable file, as an absolute path (the server may run in another directory). */
export function existingFile(flag: string, path: string): string {
  const absolute = resolve(path);
  try {
    readFileSync(absolute);
  } catch (error) {
    throw new UsageError(
      `--${flag}: cannot read ${absolute} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
  return absolute;
}

/** A secret file's content (an API key, `username:password`): one line, surrounding whitespace dropped. Never echoed. */
export function secretFrom(flag: string, path: string): string {
  return readFileSync(existingFile(flag, path), 'utf8').trim();
}

/** Help text shown after a command's options. */
export function examples(...commands: string[]): string {
  return `\nExamples:\n${commands.map((line) => `  $ ${line}`).join('\n')}`;
}

/** The value of a flag the command cannot do without (checked in the action, after unknown flags). */
export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new UsageError(`--${flag} is required`);
  return value;
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/**
 * commander's error text (`error: unknown option '--jsn'\n(Did you mean --json?)`) as our
 * one line: `coregate: unknown option --jsn (did you mean --json?)`; without a suggestion it
 * points at the command's help instead.
 */
function oneLineError(text: string, command: Command): string {
  const [first = '', ...rest] = text
    .trim()
    .replace(/^error: /, '')
    .split('\n');
  // An option value refused by its parser (wholeNumber): the flag, the rule and the value given.
  const refused = /^option '(?:-\w, )?(--[^ ']+)[^']*' argument '(.*)' is invalid\. (.*)$/.exec(first);
  if (refused) return `coregate: ${refused[1]} ${refused[3]}, got ${JSON.stringify(refused[2])}\n`;
  const suggestion = /^\(Did you mean (.+)\)$/.exec(rest.join(' ').trim())?.[1];
  const message = first
    .replace(/^unknown command '(.*)'$/, 'unknown command "$1"')
    .replace(/'([^']*)'/g, '$1')
    .replace(/\.$/, '');
  return `coregate: ${message}${suggestion ? ` (did you mean ${suggestion})` : `; see ${commandPath(command)} --help`}\n`;
}

/** Applies our output, help and exit handling to `command` and every command below it. */
function prepare(command: Command, io: CliIo): void {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .helpOption('-h, --help', 'print this help')
    // A command's line in its group's list: `show ID`, not `show [options] <ID>`.
    .configureHelp({
      subcommandTerm: (sub) =>
        [sub.name(), ...sub.registeredArguments.map((arg) => (arg.required ? arg.name() : `[${arg.name()}]`))].join(
          ' ',
        ),
    })
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
      outputError: (text, write) => write(oneLineError(text, command)),
    });
  if (command.commands.length > 0) command.helpCommand('help [command]', 'print the help of a command');
  for (const sub of command.commands) prepare(sub, io);
}

/**
 * Parses `argv` (the words after the program name) and runs the chosen action. Returns the
 * exit status: 0 after help or `--version`, 2 after a usage mistake (already told on stderr),
 * else what the action left in `context.exitCode`. Other errors are the caller's to report.
 */
export async function runProgram(program: Command, argv: readonly string[], context: CommandContext): Promise<number> {
  prepare(program, context.io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      context.io.err(`coregate: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

/**
 * For a command that serves until stopped (`core-sim`, `fineract-sim`): resolves with the
 * reason once SIGTERM or SIGINT arrives or `signal` aborts, and removes its signal handlers
 * then. Call it before announcing that the server listens, so that a signal sent right after
 * the announcement is caught.
 */
export async function untilStopped(signal?: AbortSignal): Promise<string> {
  let onSignal!: (name: NodeJS.Signals) => void;
  const stopped = new Promise<string>((resolve) => {
    onSignal = resolve;
    signal?.addEventListener('abort', () => resolve('abort'), { once: true });
    if (signal?.aborted) resolve('abort');
  });
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    return await stopped;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
