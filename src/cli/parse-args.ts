/** The options of one CLI command, with `--json` and `--help` understood by every command. */
import { parseArgs } from 'node:util';
import { UsageError } from './io.js';

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

export interface Parsed {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** Parses `args`, expecting exactly `positionals` positional arguments (unless `--help`). */
export function parse(args: string[], options: OptionSpec, positionals: number): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!parsed.values.help && parsed.positionals.length !== positionals) {
    throw new UsageError(positionals === 1 ? 'expected one client ID' : `unexpected argument "${parsed.positionals[0]}"`);
  }
  return parsed;
}
