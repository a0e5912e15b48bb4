/**
 * Makes a new embedded cluster in `process.argv[2]` and exits: run by `pglite-database.ts` in a
 * process of its own on a data dir's first start. PGlite runs initdb as a second WebAssembly
 * instance inside the process that creates the cluster, and a process keeps the memory that
 * instance grew to long after it is gone; in a short-lived child it goes back to the system
 * when the child exits, and the server starts as it would on any later day.
 */
import { PGlite } from '@electric-sql/pglite';

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error('usage: pglite-initdb DATA_DIR');
const db = await PGlite.create({ dataDir });
await db.close();
