/**
 * This process's view of the institutions and their cores
 * (docs/behaviour.md#institution-changes). The list is read from the database as one entry
 * of a {@link LoadingCache} and kept for `cacheSeconds`; a change announced by the change
 * feed (any process, the CLI included) or made by this process calls
 * {@link InstitutionRegistry.forgetAll}, and the next call reads it again. While the feed is
 * not live, a change made elsewhere arrives within `cacheSeconds`.
 *
 * Each institution keeps its connector (pool, timeout, breaker) for as long as its
 * core settings stay the same: renaming, disabling or enabling it keeps its pool and
 * breaker; a new URL, key, service user, certificate, timeout, core kind or Fineract setting
 * builds a new one and closes the old.
 */
import { createHash } from 'node:crypto';
import type { InstitutionRecord } from '../domain/institution.js';
import type { Clock } from '../ports/clock.js';
import type { DatabaseDeadline } from '../ports/database-deadline.js';
import { CoreUnavailable, InstitutionUnavailable, type CoreConnector } from '../ports/core-connector.js';
import type { InstitutionCoreFactory } from '../ports/institution-core-factory.js';
import type { InstitutionStore } from '../ports/institution-store.js';
import { LoadingCache } from '../ports/loading-cache.js';

export interface InstitutionRegistryOptions {
  readonly cacheSeconds: number;
  /** A reload failed (the cached list is kept) or a connector could not be built or closed. */
  readonly onError?: (error: unknown, institution: string | undefined) => void;
}

interface Entry {
  readonly record: InstitutionRecord;
  /** A digest of the core settings: the connector is rebuilt only when it changes. */
  readonly fingerprint: string;
  readonly core: CoreConnector;
}

/** A digest, so that the API key and the service user are not kept in one more string. */
function coreFingerprint(record: InstitutionRecord): string {
  const settings = [
    record.coreUrl,
    record.coreApiKey,
    record.coreCaFile,
    record.coreCertFile,
    record.coreKeyFile,
    record.coreTimeoutMs,
    record.coreKind,
    record.fineract,
    record.coreCredentials,
  ];
  return createHash('sha256').update(JSON.stringify(settings)).digest('base64url');
}

/** Stands in for a connector that could not be built: every call is a core failure (502). */
function failingCore(reason: string): CoreConnector {
  const fail = (): Promise<never> => Promise.reject(new CoreUnavailable(reason, true));
  return { startSession: fail, listAccounts: fail, ping: fail, close: async () => {} };
}

/** The one entry of the registry's cache: all institutions are read together. */
const INSTITUTIONS = 'institutions';

export class InstitutionRegistry {
  /** The institutions with their cores, as last read: the cached list, and what a failed read falls back on. */
  private entries: ReadonlyMap<string, Entry> = new Map();
  /** Read with the deadline of the request that found it expired (callers joining the read wait with it). */
  private readonly list: LoadingCache<ReadonlyMap<string, Entry>, DatabaseDeadline | undefined>;
  /** Numbers the reads: one that finishes after a newer one was applied is older, and not applied. */
  private readsStarted = 0;
  private lastReadApplied = 0;
  private closed = false;

  constructor(
    private readonly store: InstitutionStore,
    private readonly factory: InstitutionCoreFactory,
    clock: Clock,
    private readonly options: InstitutionRegistryOptions,
  ) {
    this.list = new LoadingCache((_key, deadline) => this.reload(deadline), {
      clock,
      ttlSeconds: options.cacheSeconds,
      maxEntries: 1,
    });
  }

  /** The institution as last read (at most `cacheSeconds` ago); `undefined` when unknown. */
  async find(id: string): Promise<InstitutionRecord | undefined> {
    return (await this.current()).get(id)?.record;
  }

  /** `deadline`, here and in {@link coreFor}: the calling request's time for the database, should the list be read again. */
  async isEnabled(id: string, deadline?: DatabaseDeadline): Promise<boolean> {
    return (await this.current(deadline)).get(id)?.record.enabled ?? false;
  }

  /** The institution's core; throws {@link InstitutionUnavailable} when it is disabled or unknown. */
  async coreFor(id: string, deadline?: DatabaseDeadline): Promise<CoreConnector> {
    const entry = (await this.current(deadline)).get(id);
    if (!entry || !entry.record.enabled) throw new InstitutionUnavailable(id);
    return entry.core;
  }

  /** Every enabled institution with its core, by id (for `/readyz`). */
  async enabledCores(): Promise<Array<{ readonly id: string; readonly core: CoreConnector }>> {
    return [...(await this.current()).values()]
      .filter((entry) => entry.record.enabled)
      .map((entry) => ({ id: entry.record.id, core: entry.core }));
  }

  /** Reads the institutions again on the next use (after a change, here or announced by the change feed). */
  forgetAll(): void {
    this.list.forgetAll();
  }

  /** Reads the institutions now (joining a read under way, unless a change came after it began). */
  async refresh(): Promise<void> {
    await this.list.get(INSTITUTIONS, { reload: true });
  }

  async close(): Promise<void> {
    this.closed = true;
    const cores = [...this.entries.values()].map((entry) => entry.core);
    this.entries = new Map();
    this.list.forgetAll();
    await Promise.all(
      cores.map((core) => core.close().catch((error: unknown) => this.options.onError?.(error, undefined))),
    );
  }

  private async current(deadline?: DatabaseDeadline): Promise<ReadonlyMap<string, Entry>> {
    try {
      return (await this.list.get(INSTITUTIONS, deadline && { context: deadline }))!;
    } catch (error) {
      // Never read: nothing to fall back on. Read before: go on with what was read,
      // and try again after another `cacheSeconds` (not on every call while the database is down).
      // The failed read's wait counted against the request's deadline: what follows waits only for what is left.
      if (this.entries.size === 0) throw error;
      this.options.onError?.(error, undefined);
      this.list.set(INSTITUTIONS, this.entries);
      return this.entries;
    }
  }

  /** Reads the list and keeps each connector whose core settings stayed the same. */
  private async reload(deadline: DatabaseDeadline | undefined): Promise<ReadonlyMap<string, Entry>> {
    if (this.closed) return this.entries;
    const read = (this.readsStarted += 1);
    const records = await this.store.list(deadline);
    // A read begun before a change and finished after the read that followed it: not applied
    // over the newer list (nor kept by the cache, which dropped it when the change came).
    if (this.closed || read < this.lastReadApplied) return this.entries;
    this.lastReadApplied = read;
    const next = new Map<string, Entry>();
    const retired: CoreConnector[] = [];
    for (const record of records) {
      const fingerprint = coreFingerprint(record);
      const previous = this.entries.get(record.id);
      if (previous && previous.fingerprint === fingerprint) {
        next.set(record.id, { ...previous, record });
        continue;
      }
      next.set(record.id, { record, fingerprint, core: this.build(record) });
      if (previous) retired.push(previous.core);
    }
    for (const [id, entry] of this.entries) if (!next.has(id)) retired.push(entry.core);
    this.entries = next;
    // A retired pool finishes the calls under way before it closes.
    for (const core of retired) void core.close().catch((error: unknown) => this.options.onError?.(error, undefined));
    return next;
  }

  private build(record: InstitutionRecord): CoreConnector {
    try {
      return this.factory.create(record);
    } catch (error) {
      this.options.onError?.(error, record.id);
      return failingCore(
        `the core connector of institution ${record.id} could not be built: ${(error as Error)?.message ?? String(error)}`,
      );
    }
  }
}
