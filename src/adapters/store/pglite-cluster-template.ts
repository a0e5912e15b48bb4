/**
 * A new embedded cluster made once, at install, and copied into each new data dir: PGlite's
 * initdb (bootstrapping PostgreSQL's catalogs in WebAssembly) and then the migrations are most of
 * a first start's time, and a copy of the same files costs a fraction of it
 * (docs/benchmarks/investigations-2026.md, "First start"). `npm ci` makes the template
 * (`scripts/prepare.mjs` runs this module): initdb, then every migration of this code. It is named
 * after the PGlite version that made it and a digest of the migrations it holds, so a template of
 * another version or another schema is never used; without one a first start makes its cluster
 * as before (`pglite-initdb.ts`) and migrates it.
 *
 * The template holds the schema and nothing of an installation: no key, no client, no customer.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS, type Migration } from './migrations/index.js';

/** The first part of every template's name; what follows names the PGlite version and the schema. */
const TEMPLATE_PREFIX = 'pglite-cluster-';

/** The template's name for `pgliteVersion` holding `migrations` (versions, names and statements). */
export function clusterTemplateName(pgliteVersion: string, migrations: readonly Migration[]): string {
  const digest = createHash('sha256').update(JSON.stringify(migrations)).digest('hex').slice(0, 12);
  return `${TEMPLATE_PREFIX}${pgliteVersion}-schema-${digest}`;
}

/** Where the template of the installed PGlite and this code's migrations lives: beside the compiled code (`dist/`). */
export function clusterTemplateDir(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return fileURLToPath(new URL(`../../../${clusterTemplateName(version, MIGRATIONS)}`, import.meta.url));
}

/**
 * Copies the template into `dataDir` (which has no cluster yet) and returns true; false when
 * there is no template or the copy could not be put in place (the caller then runs initdb). The
 * copy is made beside `dataDir` and renamed into place, so a crash never leaves half a cluster.
 */
export function copyClusterTemplate(dataDir: string): boolean {
  const template = clusterTemplateDir();
  if (!existsSync(join(template, 'PG_VERSION'))) return false;
  const partial = `${dataDir}.partial-${process.pid}`;
  try {
    cpSync(template, partial, { recursive: true });
    renameSync(partial, dataDir);
    return true;
  } catch {
    rmSync(partial, { recursive: true, force: true });
    return false;
  }
}

/**
 * Makes the template (initdb and the migrations in a child process, then renamed into place) and
 * removes the templates of other versions or schemas beside it; run by `npm ci`.
 */
function makeClusterTemplate(): void {
  const template = clusterTemplateDir();
  const parent = dirname(template);
  for (const entry of readdirSync(parent)) {
    if (entry.startsWith(TEMPLATE_PREFIX) && join(parent, entry) !== template)
      rmSync(join(parent, entry), { recursive: true, force: true });
  }
  if (existsSync(join(template, 'PG_VERSION'))) return;
  const partial = `${template}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('./pglite-initdb.js', import.meta.url)), partial, '--migrate'],
    { stdio: 'inherit' },
  );
  renameSync(partial, template);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--make') makeClusterTemplate();
