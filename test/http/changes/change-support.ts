/** Shared by the change-feed suites: a database that counts client reads, and waiting for a change to arrive. */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../../src/adapters/store/database.js';
import type { Change, ChangeFeed } from '../../../src/ports/change-feed.js';
import type { Backend, OpenBackend } from '../../support/backends.js';

/** The one statement `SqlClientStore.findById` runs. */
const CLIENT_READ = /from clients where id = \$1/;

export interface CountedBackend extends Backend {
  /** How many times a client row was read by id, since the database was opened. */
  readonly clientReads: () => number;
}

/** `backend`, its databases counting client reads (everything else passed through, the change feed included). */
export function countingClientReads(backend: Pick<Backend, 'name' | 'skip' | 'open'>): CountedBackend {
  let reads = 0;
  return {
    name: backend.name,
    skip: backend.skip,
    clientReads: () => reads,
    async open(options) {
      const opened = await backend.open(options);
      const inner = opened.database;
      const counted: Database = Object.assign(Object.create(inner) as Database, {
        query: (text: string, params?: readonly unknown[]) => {
          if (CLIENT_READ.test(text)) reads += 1;
          return inner.query(text, params);
        },
      });
      return { ...opened, database: counted } satisfies OpenBackend;
    },
  };
}

/** Polls `check` (true when the change has arrived) until it holds; fails after `withinMs`. Returns how long it took. */
export async function arrivesWithin(withinMs: number, why: string, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    assert.ok(performance.now() - started < withinMs, `${why}: not within ${withinMs} ms`);
    await sleep(20);
  }
}

/**
 * Resolves once `feed` delivers a change `matches` accepts; fails after `withinMs`. Subscribe
 * (call this) before the write that makes the change. Listeners are told in the order they
 * subscribed, so the caches, subscribed when the services were made, have had it too.
 */
export function changeDelivered(
  feed: ChangeFeed | undefined,
  matches: (change: Change) => boolean,
  withinMs = 10_000,
): Promise<void> {
  assert.ok(feed, 'these services have no change feed');
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no such change delivered within ${withinMs} ms`));
    }, withinMs);
    const unsubscribe = feed.subscribe((change) => {
      if (!matches(change)) return;
      clearTimeout(deadline);
      unsubscribe();
      resolve();
    });
  });
}
