import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from '../../src/server/heap-tuning.js';

describe('heap tuning (peak RSS under load)', () => {
  it('sets the old generation growing factor when node was started without one', () => {
    const set: string[] = [];
    assert.equal(
      limitHeapGrowth([], (flags) => set.push(flags)),
      true,
    );
    assert.deepEqual(set, [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it("keeps the operator's own flag, in either spelling", () => {
    for (const execArgv of [
      ['--heap-growing-percent=80'],
      ['--heap-growing-percent', '80'],
      ['--heap_growing_percent=80'],
    ]) {
      const set: string[] = [];
      assert.equal(
        limitHeapGrowth(execArgv, (flags) => set.push(flags)),
        false,
      );
      assert.deepEqual(set, []);
    }
  });

  it('is a flag this node knows (set at run time, an unknown flag would do nothing, silently)', () => {
    // From the command line V8 refuses a flag it does not know.
    const cli = spawnSync(process.execPath, [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '-e', ''], {
      encoding: 'utf8',
    });
    assert.equal(cli.status, 0, cli.stderr);
  });
});
