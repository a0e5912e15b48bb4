/** `.env.example` lists every setting and is what the schema generates (`npm run config-table` writes it). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { settingSchemas } from '../../src/config/schema.js';
import { envExample } from '../../src/config/settings-table.js';

const ENV_EXAMPLE = new URL('../../../.env.example', import.meta.url);

describe('.env.example', () => {
  it('is what the schema generates (run `npm run config-table` after changing a setting)', () => {
    assert.ok(
      readFileSync(ENV_EXAMPLE, 'utf8') === envExample(),
      '.env.example is out of date: run `npm run config-table` and commit it',
    );
  });

  it('lists every setting', () => {
    const text = envExample();
    for (const [name] of settingSchemas()) assert.match(text, new RegExp(`^# ${name}=`, 'm'), name);
  });
});
