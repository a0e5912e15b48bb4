/**
 * 7. Ceiling: a bare node:http server answering the accounts body coregate
 * gives, with no work at all — what this machine and this load generator can do.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_CUSTOMERS } from '../../dist/src/fakes/core-simulator/demo-data.js';
import { checkAccounts } from '../lib/checks.mjs';
import { measure } from '../lib/measure.mjs';
import { startRawServer } from '../lib/servers.mjs';

export const name = 'ceiling';
export const names = [name];
export const title = '7. Ceiling';

export async function run(ctx) {
  const accounts = DEMO_CUSTOMERS[0].accounts;
  const body =
    ctx.captured.accountsBody ??
    JSON.stringify({ name: 'Success', className: 'Success', message: 'Success', data: accounts, code: 200 });
  const file = join(ctx.tmpDir, 'ceiling-body.json');
  writeFileSync(file, body);
  const raw = await startRawServer(ctx, file);
  try {
    await checkAccounts({
      what: 'raw node:http GET /',
      url: `${raw.url}/core/accounts`,
      expectedAccounts: accounts,
      pick: (json) => json.data,
    });
    const measurement = await measure(ctx, { server: raw, spec: { origin: raw.url, path: '/core/accounts' } });
    const row = ctx.results.addRow({
      scenario: name,
      subject: 'raw node:http',
      baseline: true,
      measurement,
      notes: [`fixed ${Buffer.byteLength(body)}-byte body`],
    });
    ctx.ceiling = row;
  } finally {
    await raw.stop();
  }
}
