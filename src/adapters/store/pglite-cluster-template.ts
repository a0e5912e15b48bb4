/**
 * A new embedded cluster made once, at install, and copied into each new data dir: PGlite's
 * initdb (bootstrapping PostgreSQL's catalogs in WebAssembly) is most of a first start's time,
 * and a copy of the same files costs a fraction of it (docs/benchmarks/investigations-2026.md,
 * "First start"). `npm ci` makes the template (`scripts/prepare.mjs` runs this module); it is
 * named after the PGlite version that made it, so a template of another version is never used,
 * and without one a first start makes its cluster as before (`pglite-initdb.ts`).
 *
 * The template holds a bare cluster and nothing of an installation: no schema, no key, no client.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the template of the installed PGlite lives: beside the compiled code (`dist/`). */
export function clusterTemplateDir(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return fileURLToPath(new URL(`../../../pglite-cluster-${version}`, import.meta.url));
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

/** Makes the template (initdb in a child process, then renamed into place); run by `npm ci`. */
function makeClusterTemplate(): void {
  const template = clusterTemplateDir();
  if (existsSync(join(template, 'PG_VERSION'))) return;
  const partial = `${template}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  execFileSync(process.execPath, [fileURLToPath(new URL('./pglite-initdb.js', import.meta.url)), partial], {
    stdio: 'inherit',
  });
  renameSync(partial, template);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--make') makeClusterTemplate();
