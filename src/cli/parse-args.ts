/** The options of one CLI command, with `--json` and `--help` understood by every command. */
import { parseArgs } from 'node:util';
import { UsageError } from './io.js';

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

export interface Parsed {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** Levenshtein distance: a tiny one, because suggestions compare a typed flag with a handful of known ones. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known flag closest to `typed`, if it is close enough to be what was meant. */
export function suggestFlag(typed: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typed, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(typed.length / 3)) ? best.name : undefined;
}

/**
 * One line for a flag the command does not take, with a suggestion (`--jsn` → "did you mean --json?").
 * Node's own message is written for JavaScript callers (`To specify a positional argument … '-- "--jsn"'`).
 */
function unknownOption(args: readonly string[], options: OptionSpec, error: Error): UsageError {
  const known = Object.keys(options);
  const flag = args.find((arg) => arg.startsWith('-') && arg !== '--' && !known.includes(arg.replace(/^-+/, '').split('=')[0]!));
  if (!flag) return new UsageError(error.message.split('\n')[0]!);
  const name = flag.replace(/^-+/, '').split('=')[0]!;
  const suggestion = suggestFlag(name, known);
  const takes = known.length > 0 ? `; this command takes ${known.map((option) => `--${option}`).join(', ')}` : '';
  return new UsageError(`unknown option ${flag.split('=')[0]}${suggestion ? ` (did you mean --${suggestion}?)` : takes}`);
}

/** Parses `args`, expecting exactly `positionals` positional arguments (unless `--help`). */
export function parse(args: string[], options: OptionSpec, positionals: number): Parsed {
  const all: OptionSpec = { ...options, json: { type: 'boolean' }, help: { type: 'boolean' } };
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args, options: all, allowPositionals: true, strict: true });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw unknownOption(args, all, error as Error);
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  if (!parsed.values.help && parsed.positionals.length !== positionals) {
    throw new UsageError(positionals === 1 ? 'expected one client ID' : `unexpected argument "${parsed.positionals[0]}"`);
  }
  return parsed;
}
