/**
 * This process's view of the institutions and their cores (CONTRACT §8). The list
 * is read from the database and kept for `cacheSeconds`; a change announced by the
 * change feed (any process, the CLI included) or made by this process calls
 * {@link InstitutionRegistry.invalidate}, and the next call reads it again. While the
 * feed is not live, a change made elsewhere arrives within `cacheSeconds`.
 *
 * Each institution keeps its connector (pool, timeout, breaker) for as long as its
 * core settings stay the same: renaming, disabling or enabling it keeps its pool and
 * breaker; a new URL, key, certificate or timeout builds a new one and closes the old.
 */
import { createHash } from 'node:crypto';
import type { InstitutionRecord } from '../domain/institution.js';
import type { Clock } from '../ports/clock.js';
import { CoreUnavailable, InstitutionUnavailable, type CoreConnector } from '../ports/core-connector.js';
import type { InstitutionCoreFactory } from '../ports/institution-core-factory.js';
import type { InstitutionStore } from '../ports/institution-store.js';

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

/** A digest, so that the API key is not kept in one more string. */
function coreFingerprint(record: InstitutionRecord): string {
  const settings = [record.coreUrl, record.coreApiKey, record.coreCaFile, record.coreCertFile, record.coreKeyFile, record.coreTimeoutMs];
  return createHash('sha256').update(JSON.stringify(settings)).digest('base64url');
}

/** Stands in for a connector that could not be built: every call is a core failure (502). */
function failingCore(reason: string): CoreConnector {
  const fail = async (): Promise<never> => {
    throw new CoreUnavailable(reason, true);
  };
  return { startSession: fail, listAccounts: fail, ping: fail, close: async () => {} };
}

export class InstitutionRegistry {
  private entries: ReadonlyMap<string, Entry> = new Map();
  private loadedAt: number | undefined;
  private loading: { readonly promise: Promise<void>; readonly generation: number } | undefined;
  /** Moved on by {@link invalidate}: a read begun before it neither counts as fresh nor is joined. */
  private generation = 0;
  /** The generation of the read whose entries are held. */
  private appliedGeneration = 0;
  private closed = false;

  constructor(
    private readonly store: InstitutionStore,
    private readonly factory: InstitutionCoreFactory,
    private readonly clock: Clock,
    private readonly options: InstitutionRegistryOptions,
  ) {}

  /** The institution as last read (at most `cacheSeconds` ago); `undefined` when unknown. */
  async find(id: string): Promise<InstitutionRecord | undefined> {
    return (await this.current()).get(id)?.record;
  }

  async isEnabled(id: string): Promise<boolean> {
    return (await this.current()).get(id)?.record.enabled ?? false;
  }

  /** The institution's core; throws {@link InstitutionUnavailable} when it is disabled or unknown. */
  async coreFor(id: string): Promise<CoreConnector> {
    const entry = (await this.current()).get(id);
    if (!entry || !entry.record.enabled) throw new InstitutionUnavailable(id);
    return entry.core;
  }

  /** Every enabled institution with its core, by id (for `/readyz`). */
  async enabledCores(): Promise<Array<{ readonly id: string; readonly core: CoreConnector }>> {
    return [...(await this.current()).values()].filter((entry) => entry.record.enabled).map((entry) => ({ id: entry.record.id, core: entry.core }));
  }

  /** Reads the institutions again on the next use (after a change, here or announced by the change feed). */
  invalidate(): void {
    this.generation += 1;
    this.loadedAt = undefined;
  }

  /** Reads the institutions now (joining a read under way, unless a change came after it began). */
  async refresh(): Promise<void> {
    if (this.loading?.generation !== this.generation) {
      const generation = this.generation;
      const promise: Promise<void> = this.reload(generation).finally(() => {
        if (this.loading?.promise === promise) this.loading = undefined;
      });
      this.loading = { promise, generation };
    }
    await this.loading.promise;
  }

  async close(): Promise<void> {
    this.closed = true;
    const cores = [...this.entries.values()].map((entry) => entry.core);
    this.entries = new Map();
    await Promise.all(cores.map((core) => core.close().catch((error: unknown) => this.options.onError?.(error, undefined))));
  }

  private async current(): Promise<ReadonlyMap<string, Entry>> {
    const fresh = this.loadedAt !== undefined && this.clock.now().getTime() - this.loadedAt < this.options.cacheSeconds * 1000;
    if (fresh) return this.entries;
    try {
      await this.refresh();
    } catch (error) {
      // Never loaded: nothing to fall back on. Loaded before: go on with what was read,
      // and try again after another `cacheSeconds` (not on every call while the database is down).
      if (this.entries.size === 0) throw error;
      this.loadedAt = this.clock.now().getTime();
      this.options.onError?.(error, undefined);
    }
    return this.entries;
  }

  private async reload(generation: number): Promise<void> {
    const records = await this.store.list();
    // A newer read (begun after a change) already replaced the entries: this one is older.
    if (this.closed || generation < this.appliedGeneration) return;
    this.appliedGeneration = generation;
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
    // Fresh only if no change was announced while reading: else the next call reads again.
    this.loadedAt = generation === this.generation ? this.clock.now().getTime() : undefined;
    // A retired pool finishes the calls under way before it closes.
    for (const core of retired) void core.close().catch((error: unknown) => this.options.onError?.(error, undefined));
  }

  private build(record: InstitutionRecord): CoreConnector {
    try {
      return this.factory.create(record);
    } catch (error) {
      this.options.onError?.(error, record.id);
      return failingCore(`the core connector of institution ${record.id} could not be built: ${(error as Error)?.message ?? String(error)}`);
    }
  }
}
