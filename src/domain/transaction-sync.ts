/**
 * Incremental sync (docs/behaviour.md#transaction-sync), as pure functions: what changed
 * between what a platform was last told (ids and keyed digests, nothing of the records)
 * and what the core lists now, and one page of those changes.
 *
 * - An id the platform was not told of is `added`; an id whose record's digest differs is
 *   `modified` (a reversal flips `reversed`, so a reversed transaction is modified, never
 *   removed); a told id the core no longer lists is `removed` (a pending transaction
 *   replaced by its booked one: the pending id is removed, the booked id added).
 * - A booked transaction that left the sync window by age is not a removal: it is dropped
 *   from the kept state silently, as Plaid keeps history it no longer re-reads.
 * - Changes come removals first, then modifications, then additions newest first; a page
 *   takes the first `count` of them and the next page recomputes what is left.
 */
import { compareNewestFirst, type TransactionRecord } from './transaction.js';
import { addDays, DEFAULT_WINDOW_DAYS } from './transaction-query.js';

/** What coregate keeps of a transaction it told a platform about. */
export interface KeptTransaction {
  readonly id: string;
  /** A keyed digest of the whole record: equal records, equal digests; the record cannot be read back. */
  readonly digest: string;
  /** The last day the sync window holds it (its booking day plus the window); null while pending. */
  readonly leavesWindowOn: string | null;
}

/** A record the core lists now, with its digest. */
export interface DigestedTransaction {
  readonly record: TransactionRecord;
  readonly digest: string;
}

/** One page of changes, and what to write to the kept state for it. */
export interface SyncPage {
  readonly added: TransactionRecord[];
  readonly modified: TransactionRecord[];
  readonly removed: string[];
  /** More changes wait beyond this page. */
  readonly hasMore: boolean;
  /** Kept rows to insert or replace: the added and modified of this page. */
  readonly upserts: KeptTransaction[];
  /** Kept ids to delete: this page's removals and every transaction aged out of the window. */
  readonly deletes: string[];
}

/** The last day the sync window holds a record. */
function leavesWindowOn(record: TransactionRecord): string | null {
  return record.bookingDate === null ? null : addDays(record.bookingDate, DEFAULT_WINDOW_DAYS);
}

/**
 * The first `count` changes between `kept` and `current`. `unchanged` says whether a
 * current record still matches the digest kept for it (a digest made under an older
 * encryption key still matches). `today` decides what aged out of the window.
 */
export function syncPage(
  kept: ReadonlyMap<string, KeptTransaction>,
  current: readonly DigestedTransaction[],
  count: number,
  today: string,
  unchanged: (entry: DigestedTransaction, keptDigest: string) => boolean,
): SyncPage {
  const listed = new Set<string>();
  const added: DigestedTransaction[] = [];
  const modified: DigestedTransaction[] = [];
  for (const entry of current) {
    listed.add(entry.record.id);
    const before = kept.get(entry.record.id);
    if (!before) added.push(entry);
    else if (!unchanged(entry, before.digest)) modified.push(entry);
  }
  const removed: string[] = [];
  const agedOut: string[] = [];
  for (const [id, before] of kept) {
    if (listed.has(id)) continue;
    if (before.leavesWindowOn !== null && before.leavesWindowOn < today) agedOut.push(id);
    else removed.push(id);
  }
  removed.sort();
  modified.sort((a, b) => compareNewestFirst(a.record, b.record));
  added.sort((a, b) => compareNewestFirst(a.record, b.record));

  let room = count;
  const pageRemoved = removed.slice(0, room);
  room -= pageRemoved.length;
  const pageModified = modified.slice(0, room);
  room -= pageModified.length;
  const pageAdded = added.slice(0, room);
  const total = removed.length + modified.length + added.length;
  const upserts = [...pageModified, ...pageAdded].map(keptOf);
  return {
    added: pageAdded.map((entry) => entry.record),
    modified: pageModified.map((entry) => entry.record),
    removed: pageRemoved,
    hasMore: total > count,
    upserts,
    deletes: [...pageRemoved, ...agedOut],
  };
}

function keptOf(entry: DigestedTransaction): KeptTransaction {
  return { id: entry.record.id, digest: entry.digest, leavesWindowOn: leavesWindowOn(entry.record) };
}

/**
 * The canonical text a record's digest is made of: every field in the schema's order, so
 * two equal records always give the same text whatever order a core wrote them in.
 */
export function canonicalRecord(record: TransactionRecord): string {
  return JSON.stringify([
    record.id,
    record.accountId,
    record.status,
    record.bookingDate,
    record.valueDate,
    record.amount,
    record.creditDebit,
    record.currency,
    record.description,
    record.type,
    record.runningBalance,
    record.reversed,
  ]);
}
