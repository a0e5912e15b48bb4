/**
 * Makes a new embedded cluster in `process.argv[2]` and exits: run by `pglite-database.ts` in a
 * process of its own on a data dir's first start. PGlite runs initdb as a second WebAssembly
 * instance inside the process that creates the cluster, and a process keeps the memory that
 * instance grew to long after it is gone; in a short-lived child it goes back to the system
 * when the child exits, and the server starts as it would on any later day.
 *
 * With `--migrate` it also applies every migration (the install-time template,
 * `pglite-cluster-template.ts`).
 */
import { PGlite } from '@electric-sql/pglite';
import { migrate } from './migrate.js';
import { PgliteDatabase } from './pglite-database.js';

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error('usage: pglite-initdb DATA_DIR [--migrate]');
const db = await PGlite.create({ dataDir });
await db.close();
if (process.argv[3] === '--migrate') {
  const database = await PgliteDatabase.open(dataDir);
  await migrate(database);
  await database.close();
}
