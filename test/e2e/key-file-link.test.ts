/**
 * A symbolically linked `encryption.key` in the data dir is refused with one sentence naming the
 * file and "symbolic link", before anything in the data dir is created, locked or migrated
 * (docs/operations.md, "Threat model"): the directory is left as it was, for `serve` and for a
 * command alike.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { killAll, runCli, tempDataDir } from './support/process.js';

after(killAll);

describe('a symbolically linked encryption.key', () => {
  it('stops serve and a command before the data dir is touched', async (t) => {
    const temp = tempDataDir({ empty: true });
    t.after(temp.remove);
    const key = `${randomBytes(32).toString('base64')}\n`;
    const target = join(temp.dir, 'elsewhere.key');
    writeFileSync(target, key, { mode: 0o600 });
    const dataDir = join(temp.dir, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    symlinkSync(target, join(dataDir, 'encryption.key'));

    for (const args of [['serve'], ['clients', 'list', '--json']]) {
      const result = await runCli(args, { COREGATE_DATA_DIR: dataDir, PORT: '0' });
      const why = `${args.join(' ')}: ${result.stderr}`;
      assert.notEqual(result.code, 0, why);
      // One refusal line (a command may say first which database it uses).
      const refusals = result.stderr.split('\n').filter((line) => line.startsWith('coregate: '));
      assert.equal(refusals.length, 1, why);
      assert.match(
        refusals[0]!,
        new RegExp(`^coregate: ${join(dataDir, 'encryption.key')} is a symbolic link: [^\n]+$`),
        why,
      );
      assert.doesNotMatch(result.stderr, /ELOOP/, why);
      assert.deepEqual(readdirSync(dataDir), ['encryption.key'], `${why}: nothing created`);
      assert.equal(readFileSync(target, 'utf8'), key, 'the linked file is untouched');
    }
  });
});
