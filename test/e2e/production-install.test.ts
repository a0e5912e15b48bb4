/**
 * The production install of docs/operations.md ("Installing from a clone"), as an operator
 * runs it: a clean clone of this repository (its committed HEAD), `npm ci --omit=dev` (no
 * devDependencies: the compiler and the server's types are dependencies, scripts/prepare.mjs
 * compiles the server alone), then `bin/coregate --version`, the documented PostgreSQL role
 * and database, and `migrate` and `serve` on them. The packages come from npm's cache
 * (`--prefer-offline`; CI's own `npm ci` filled it): the registry is asked only for what it lacks.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { postgresSkip } from '../support/postgres.js';
import { killAll, ROOT, runCli, spawnServer, tempDataDir } from './support/process.js';

after(killAll);

const run = promisify(execFile);

/** The test runner's environment without npm's variables for the scripts it runs (`npm_config_*`…): the nested npm reads its own. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

/** The SQL between docs/operations.md's database-setup markers. */
function documentedDatabaseSetup(): string {
  const guide = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const match =
    /<!-- snippet:database-setup:start -->\n```sql\n([\s\S]*?)```\n<!-- snippet:database-setup:end -->/.exec(guide);
  assert.ok(match, 'docs/operations.md shows the database setup between its snippet markers');
  return match[1]!;
}

const isGitCheckout = existsSync(join(ROOT, '.git'));

describe(
  'production install from a clean clone',
  { timeout: 600_000, skip: isGitCheckout ? false : 'not a git checkout: nothing to clone' },
  () => {
    it('npm ci --omit=dev gives a working bin/coregate: --version, migrate and serve on the documented PostgreSQL role', async (t) => {
      const work = mkdtempSync(join(tmpdir(), 'cg-install-'));
      t.after(() => rmSync(work, { recursive: true, force: true }));
      const clone = join(work, 'coregate');
      const started = Date.now();
      await run('git', ['clone', '--quiet', '--no-hardlinks', ROOT, clone], { env: cleanEnv() });
      await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: clone,
        env: cleanEnv(),
        timeout: 480_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      t.diagnostic(`clone and npm ci --omit=dev: ${Date.now() - started} ms`);
      assert.ok(!existsSync(join(clone, 'node_modules', 'oauth4webapi')), 'no devDependency was installed');
      assert.ok(existsSync(join(clone, 'dist', 'src', 'cli', 'main.js')), 'the server was compiled');

      const version = await runCli(['--version'], {}, 30_000, clone);
      assert.equal(version.code, 0, version.stderr);
      const { version: packageVersion } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        version: string;
      };
      assert.equal(version.stdout.trim(), `coregate ${packageVersion}`);

      const env = await databaseFor(t);
      const migrated = await runCli(['migrate'], env, 60_000, clone);
      assert.equal(migrated.code, 0, migrated.stderr);

      const server = await spawnServer(env, clone).ready();
      const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: unknown[] };
      assert.ok(jwks.keys.length > 0);
      assert.equal((await server.stop()).code, 0);
      t.diagnostic(`whole install test: ${Date.now() - started} ms`);
    });
  },
);

/**
 * The settings of a database made as docs/operations.md says (its SQL, with this test's own
 * role and database name), dropped after the test; the embedded database where the
 * PostgreSQL tests are skipped.
 */
async function databaseFor(t: { after(fn: () => unknown): void }): Promise<Record<string, string>> {
  if (postgresSkip) {
    const data = tempDataDir();
    t.after(data.remove);
    return { COREGATE_DATA_DIR: data.dir };
  }
  const name = `coregate_install_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const sql = documentedDatabaseSetup()
    .replace(/\bcoregate\b/g, name)
    .replace(/'[^']*'/, `'${password}'`);
  const adminUrl = process.env['COREGATE_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (const statement of sql
      .split(';')
      .map((text) => text.replace(/--.*$/gm, '').trim())
      .filter(Boolean))
      await admin.query(statement);
  } finally {
    await admin.end();
  }
  t.after(async () => {
    const cleanup = new pg.Client({ connectionString: adminUrl });
    await cleanup.connect();
    await cleanup.query(`drop database if exists "${name}" with (force)`);
    await cleanup.query(`drop role if exists "${name}"`);
    await cleanup.end();
  });
  const url = new URL(adminUrl);
  url.username = name;
  url.password = password;
  url.pathname = `/${name}`;
  return { DATABASE_URL: url.toString(), COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
}
