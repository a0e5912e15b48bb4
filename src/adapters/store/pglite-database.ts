import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { Mutex, withTimeout } from 'async-mutex';
import type { ChangeFeed } from '../../ports/change-feed.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import { PgliteChangeFeed } from './pglite-change-feed.js';
import { copyClusterTemplate } from './pglite-cluster-template.js';
import { PgliteStatements } from './pglite-statements.js';
import { databaseUnavailable, inDatabaseSpan, waitWithin, type Database, type Queryable } from './database.js';

/** A caller that waited its time for the single connection. */
function busy(ms: number): Error {
  return databaseUnavailable(`embedded database busy: no answer within ${ms} ms`);
}

/**
 * PostgreSQL's own default, 128 MB, is sized for a server with a machine to itself; in
 * WebAssembly every buffer touched stays in the process's memory for good, and the embedded
 * database's data set is small (docs/operations.md, "Embedded database").
 */
const SHARED_BUFFERS = '16MB';

/** A new data dir's cluster is made in a process of its own (`pglite-initdb.ts`). */
async function initdbInChild(dataDir: string): Promise<void> {
  const script = new URL('./pglite-initdb.js', import.meta.url);
  await promisify(execFile)(process.execPath, [script.pathname, dataDir], { timeout: 120_000 });
}

/** What the lock answers a caller whose turn did not come in time (made once: it is compared, never thrown on). */
const TURN_NOT_COME = new Error('no turn at the embedded database in time');

export interface PgliteOptions {
  /**
   * The longest a statement waits for the single connection (behind a transaction
   * or a long statement) before its caller gets a 503 (COREGATE_DB_TIMEOUT_MS);
   * 3000 unless set. A statement already running in WebAssembly holds the thread
   * and cannot be cut: the deadline bounds the wait, not the work.
   */
  readonly timeoutMs?: number;
  /** A cluster dump (`dump()`) to start from instead of an empty cluster. */
  readonly loadDataDir?: Blob;
}

/**
 * Embedded PostgreSQL (PGlite, WebAssembly) in a data directory, or in memory
 * when `dataDir` is undefined. PGlite is a single connection: the caller must
 * make sure only one process opens a data directory (see `data-dir-lock.ts`).
 *
 * Statements run as named prepared statements (`pglite-statements.ts`). Every statement and
 * transaction of this process takes the backend in turn here, in arrival order, so no statement
 * ever runs inside another caller's transaction; a caller that stopped waiting loses its turn,
 * and what it asked for never runs.
 */
export class PgliteDatabase implements Database {
  readonly kind = 'embedded' as const;
  private readonly turns = new Mutex();
  private readonly statements: PgliteStatements;

  private constructor(
    private readonly db: PGlite,
    private readonly timeoutMs: number,
  ) {
    this.statements = new PgliteStatements(db);
  }

  /**
   * Opens `dataDir` (in memory when undefined). `loadDataDir` starts it from a dump
   * (`dumpDataDir`) instead of an empty cluster: making a cluster costs seconds,
   * loading a dump a fraction of that, which is what the tests' template uses.
   */
  static async open(dataDir: string | undefined, options: PgliteOptions = {}): Promise<PgliteDatabase> {
    if (dataDir !== undefined && !options.loadDataDir && !existsSync(join(dataDir, 'PG_VERSION'))) {
      if (!copyClusterTemplate(dataDir)) await initdbInChild(dataDir);
    }
    const db = await PGlite.create({
      ...(dataDir === undefined ? {} : { dataDir }),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
    });
    return new PgliteDatabase(db, options.timeoutMs ?? 3000);
  }

  /** A dump of the whole cluster (uncompressed), for `open(…, { loadDataDir })`. */
  async dump(): Promise<Blob> {
    return this.turns.runExclusive(() => this.db.dumpDataDir('none'));
  }

  query<Row>(text: string, params: readonly unknown[] = [], deadline?: DatabaseDeadline): Promise<Row[]> {
    return inDatabaseSpan(text, () => this.inTurn(deadline, () => this.statements.run<Row>(text, params)));
  }

  /**
   * The wait for the backend is bounded (another transaction may hold it); once the
   * transaction has begun it runs to its end, which WebAssembly would not let a timer cut anyway.
   * PGlite's own transaction holds its lock throughout, so its LISTEN (the change feed) waits too.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, deadline?: DatabaseDeadline): Promise<T> {
    return inDatabaseSpan('transaction', () =>
      this.inTurn(deadline, () =>
        this.db.transaction(() =>
          work({
            query: <Row>(text: string, params: readonly unknown[] = []) => this.statements.run<Row>(text, params),
          }),
        ),
      ),
    );
  }

  /** `work` once it is this caller's turn at the backend, if that comes within the caller's time. */
  private inTurn<T>(deadline: DatabaseDeadline | undefined, work: () => Promise<T>): Promise<T> {
    return waitWithin(deadline, this.timeoutMs, async (ms) => {
      try {
        return await withTimeout(this.turns, ms, TURN_NOT_COME).runExclusive(work);
      } catch (error) {
        throw error === TURN_NOT_COME ? busy(ms) : error;
      }
    });
  }

  async ping(): Promise<void> {
    await this.query('select 1');
  }

  /** PGlite's own LISTEN: every writer is in this process. */
  changeFeed(): ChangeFeed {
    return new PgliteChangeFeed(this.db);
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
