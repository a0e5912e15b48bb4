/**
 * Fresh storage for one coregate under test: a new PostgreSQL database, or a new
 * PGlite data directory in the run's temporary directory.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';

export async function freshStorage(ctx, kind, purpose) {
  if (kind === 'postgres') return { kind, url: await ctx.pg.create(purpose) };
  return { kind, dataDir: mkdtempSync(join(ctx.tmpDir, `${purpose}-`)) };
}
