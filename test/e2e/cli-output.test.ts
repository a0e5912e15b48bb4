/**
 * The CLI's output rows on a real embedded database (the formatting itself is covered in
 * test/unit/cli-output.test.ts): `keys list` marks the key that signs, `clients rotate-secret
 * --json` says until when the previous secret works, `audit list` shows the institution.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { killAll, runCli, runJson, tempDataDir, type CreatedClient } from './support/process.js';

after(killAll);

/** Tab-separated text with a header row, as rows keyed by the header's names. */
function rowsOf(stdout: string): Array<Record<string, string>> {
  const [header = [], ...rows] = stdout
    .trim()
    .split('\n')
    .map((line) => line.split('\t'));
  return rows.map((row) => Object.fromEntries(header.map((name, at) => [name, row[at] ?? ''])));
}

describe('coregate CLI output on the embedded database', { timeout: 300_000 }, () => {
  it('keys list marks the active key; rotate-secret --json has previous_secret_expires_at; audit list has INSTITUTION', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    const env = { COREGATE_DATA_DIR: data.dir };

    const first = await runJson<{ keys: Array<{ kid: string }>; active_kid: string }>(['keys', 'list', '--json'], env);
    assert.deepEqual(
      first.keys.map((key) => key.kid),
      [first.active_kid],
    );
    const { kid } = await runJson<{ kid: string }>(['keys', 'rotate', '--json'], env);
    const keys = await runCli(['keys', 'list'], env);
    assert.equal(keys.code, 0, keys.stderr);
    assert.equal(keys.stdout.split('\n')[0], 'KID\tALG\tCRV\tACTIVE');
    const listed = rowsOf(keys.stdout);
    assert.deepEqual(
      listed.map((row) => [row['KID'], row['ACTIVE']]).sort(),
      [
        [first.active_kid, '-'],
        [kid, 'ACTIVE'],
      ].sort(),
    );

    const client = await runJson<CreatedClient>(
      ['clients', 'create', '--name', 'acme', '--platform', 'acme', '--json'],
      env,
    );
    const rotated = await runJson<Record<string, string>>(
      ['clients', 'rotate-secret', client.client_id, '--grace', '600', '--json'],
      env,
    );
    const shown = await runJson<{ secret_rotated_at: string }>(['clients', 'show', client.client_id, '--json'], env);
    assert.equal(Date.parse(rotated['previous_secret_expires_at']!) - Date.parse(shown.secret_rotated_at), 600_000);

    const audit = await runCli(['audit', 'list', '--platform', 'acme'], env);
    assert.equal(audit.code, 0, audit.stderr);
    const events = rowsOf(audit.stdout);
    assert.deepEqual(
      events.map((row) => row['TYPE']),
      ['client.secret_rotated', 'client.created'],
    );
    assert.deepEqual(
      events.map((row) => row['INSTITUTION']),
      ['default', 'default'],
      'operator actions on a client carry its institution',
    );
  });
});
