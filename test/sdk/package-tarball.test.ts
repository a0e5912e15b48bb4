/**
 * `@coregate/client` as a published package: `npm pack` of packages/client (its prepack
 * script compiles it) gives a tarball that installs into an empty project without the
 * network (it has no runtime dependencies), imports with plain Node, and type-checks for a
 * TypeScript consumer through its `exports` and `types`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { CLIENT_PACKAGE_DIR, npmEnv, packClient } from '../support/packed-client.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('@coregate/client packed and installed', { timeout: 180_000 }, () => {
  it('npm pack gives a tarball with the build, types, README and license, which installs offline and imports', async (t) => {
    const work = mkdtempSync(join(tmpdir(), 'cg-client-pack-'));
    t.after(() => rmSync(work, { recursive: true, force: true }));
    const manifest = JSON.parse(readFileSync(join(CLIENT_PACKAGE_DIR, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(manifest['private'], undefined, 'publishable');
    assert.equal(manifest['license'], 'Apache-2.0');
    assert.equal(manifest['dependencies'], undefined, 'no runtime dependencies');
    // dist/ is in the tarball: nothing runs when it is installed (npm warns about install-time scripts).
    const scripts = (manifest['scripts'] ?? {}) as Record<string, string>;
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare'])
      assert.equal(scripts[script], undefined, `no ${script} script`);

    const packed = await packClient(work);
    const files = packed.files;
    for (const expected of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/client.js',
    ])
      assert.ok(files.includes(expected), `${expected} is packed`);
    assert.deepEqual(files.filter((file) => !/^(dist|src)\//.test(file)).sort(), [
      'LICENSE',
      'README.md',
      'package.json',
    ]);

    const consumer = join(work, 'consumer');
    await run('mkdir', [consumer]);
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
    );
    const installed = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', packed.tarball], {
      cwd: consumer,
      env: npmEnv(),
    });
    assert.doesNotMatch(`${installed.stdout}${installed.stderr}`, /install-scripts|install scripts/);

    // Plain Node, from outside this repository: what a platform's code does.
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = JSON.stringify({
      type: 'customer.registered',
      timestamp: new Date().toISOString(),
      data: { institution: 'default', platform: 'p', customerId: 'c-1' },
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `v1,${createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`msg_1.${timestamp}.${body}`)
      .digest('base64')}`;
    writeFileSync(
      join(consumer, 'main.mjs'),
      `import { CoregateClient, CoregateError, verifyWebhook } from '@coregate/client';
const client = new CoregateClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'cg_x', clientSecret: 'cgs_y' });
const event = verifyWebhook(process.env.BODY, { 'webhook-id': 'msg_1', 'webhook-timestamp': process.env.TS, 'webhook-signature': process.env.SIG }, process.env.SECRET);
console.log(JSON.stringify({ client: typeof client.listAccounts, error: typeof CoregateError, event: event.type }));
`,
    );
    const imported = await run(process.execPath, ['main.mjs'], {
      cwd: consumer,
      env: { ...npmEnv(), BODY: body, TS: timestamp, SIG: signature, SECRET: secret },
    });
    assert.deepEqual(JSON.parse(imported.stdout), {
      client: 'function',
      error: 'function',
      event: 'customer.registered',
    });

    // A TypeScript consumer resolves the types through `exports` (NodeNext), with the compiler of this repository.
    writeFileSync(
      join(consumer, 'main.ts'),
      `import { CoregateClient, CoregateError, type AccountRecord } from '@coregate/client';
const client = new CoregateClient({ baseUrl: 'https://gw.bank.example', clientId: 'cg_x', clientSecret: 'cgs_y' });
export async function balances(customerId: string): Promise<number[]> {
  try {
    const accounts: AccountRecord[] = await client.listAccounts(customerId);
    return accounts.map((account) => account.currentBalance);
  } catch (error) {
    if (error instanceof CoregateError && error.status === 404) return [];
    throw error;
  }
}
`,
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const typeRoots = join(ROOT, 'node_modules', '@types');
    await run(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--typeRoots',
        typeRoots,
        '--types',
        'node',
        'main.ts',
      ],
      { cwd: consumer },
    ).catch((error: Error & { stdout?: string }) =>
      assert.fail(`the consumer does not type-check:\n${error.stdout ?? String(error)}`),
    );
  });
});
