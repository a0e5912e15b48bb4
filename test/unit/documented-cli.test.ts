/**
 * README.md's table of CLI commands is complete: every command commander defines has a row,
 * and that row names every one of the command's flags. Read from the command definitions
 * themselves, so that a flag added to a command without its documentation fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { bufferedIo } from '../../src/cli/io.js';
import { program } from '../../src/cli/main.js';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** The first cell of each row of the table under "## Operator CLI". */
function tableRows(): string[] {
  const section = README.slice(
    README.indexOf('## Operator CLI'),
    README.indexOf('\n## ', README.indexOf('## Operator CLI') + 1),
  );
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `bin/coregate'))
    .map((line) => line.split(' | ')[0]!);
}

/** Every command that runs something, as `[path, command]` (`clients create`), hidden ones and `help` left out. */
function leaves(command: Command, path: string[] = []): Array<[string, Command]> {
  const subs = command.commands.filter(
    (sub) => sub.name() !== 'help' && !(sub as unknown as { _hidden: boolean })._hidden,
  );
  if (subs.length === 0) return [[path.join(' '), command]];
  return subs.flatMap((sub) => leaves(sub, [...path, sub.name()]));
}

/** The row(s) documenting `group sub`: its first cell names the group and the command (`… / \`show ID\``). */
function rowsFor(path: string, rows: readonly string[]): string[] {
  const [group, sub] = path.split(' ');
  return rows.filter((row) =>
    sub === undefined
      ? row.startsWith(`| \`bin/coregate ${group}`)
      : row.includes(`bin/coregate ${group} ${sub}`) ||
        (row.includes(`bin/coregate ${group} `) && new RegExp(`\`(${group} )?${sub}( |\`)`).test(row)),
  );
}

describe('documented CLI', () => {
  it("README's command table has a row for every command, naming each of its flags", () => {
    const rows = tableRows();
    const root = program({ io: bufferedIo(), exitCode: 0, admin: () => Promise.reject(new Error('not here')) });
    const problems: string[] = [];
    for (const [path, command] of leaves(root)) {
      const documented = rowsFor(path, rows).join(' ');
      if (!documented) {
        problems.push(`no row for \`coregate ${path}\``);
        continue;
      }
      for (const option of command.options) {
        const flag = option.long;
        // --json: the table's introduction says every command that prints data takes it.
        if (flag && flag !== '--help' && flag !== '--json' && !new RegExp(`${flag}(?![\\w-])`).test(documented))
          problems.push(`\`coregate ${path}\`: ${flag} is not in its row`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
