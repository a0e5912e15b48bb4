/**
 * The operator's management of institutions (`coregate institutions …`,
 * docs/behaviour.md#institution-commands). Validation errors name the CLI flag at fault.
 * The core API key is taken here and never given back: an institution shows only whether it
 * has one.
 */
import { alreadyExists, invalidRequest, notFound, type FieldProblem } from '../domain/errors.js';
import {
  DEFAULT_INSTITUTION,
  isInstitutionId,
  type CoreSettingsSource,
  type Institution,
  type InstitutionRecord,
} from '../domain/institution.js';
import type { Clock } from '../ports/clock.js';
import type { InstitutionChanges, InstitutionStore } from '../ports/institution-store.js';

/** `institutions add` / `update`: a core API key in clear (read from a file by the CLI), file paths absolute. */
export interface InstitutionInput {
  readonly name?: string | undefined;
  readonly coreUrl?: string | undefined;
  readonly coreApiKey?: string | undefined;
  readonly coreCaFile?: string | undefined;
  readonly coreCertFile?: string | undefined;
  readonly coreKeyFile?: string | undefined;
  readonly coreTimeoutMs?: number | undefined;
}

/** An institution as the operator sees it, saying where its core settings come from. */
export interface InstitutionView extends Institution {
  readonly coreSource: CoreSettingsSource;
}

/** The core of `default`, from the configuration (CORE_URL, COREGATE_CORE_API_KEY, COREGATE_CORE_TIMEOUT_MS). */
export interface DefaultCoreSettings {
  /** `undefined`: the built-in simulator. */
  readonly coreUrl: string | undefined;
  readonly hasApiKey: boolean;
  readonly coreTimeoutMs: number;
  /** Called after every change, so that this process sees it at once. */
  readonly onChange?: () => void;
}

export const MIN_CORE_TIMEOUT_MS = 100;
export const MAX_CORE_TIMEOUT_MS = 120_000;
/** The key is sent as a header: visible ASCII only. */
const API_KEY = /^[\x21-\x7e]{1,1024}$/;

const CORE_FLAGS: ReadonlyArray<readonly [keyof InstitutionInput, string]> = [
  ['coreUrl', 'core-url'],
  ['coreApiKey', 'core-api-key-file'],
  ['coreCaFile', 'core-ca-file'],
  ['coreCertFile', 'core-cert-file'],
  ['coreKeyFile', 'core-key-file'],
  ['coreTimeoutMs', 'core-timeout-ms'],
];

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** The problems of the given fields (a field left `undefined` is not checked). */
function problemsOf(input: InstitutionInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (input.name !== undefined && (input.name.trim().length === 0 || input.name.trim().length > 200))
    problems.push({ path: 'name', message: 'must be 1 to 200 characters' });
  if (input.coreUrl !== undefined && !isHttpUrl(input.coreUrl))
    problems.push({ path: 'core-url', message: 'must be an http:// or https:// URL without credentials' });
  if (input.coreApiKey !== undefined && !API_KEY.test(input.coreApiKey)) {
    problems.push({ path: 'core-api-key-file', message: 'must hold 1 to 1024 visible ASCII characters (one line)' });
  }
  const timeout = input.coreTimeoutMs;
  if (
    timeout !== undefined &&
    (!Number.isInteger(timeout) || timeout < MIN_CORE_TIMEOUT_MS || timeout > MAX_CORE_TIMEOUT_MS)
  ) {
    problems.push({
      path: 'core-timeout-ms',
      message: `must be a whole number from ${MIN_CORE_TIMEOUT_MS} to ${MAX_CORE_TIMEOUT_MS}`,
    });
  }
  return problems;
}

export class InstitutionAdmin {
  constructor(
    private readonly store: InstitutionStore,
    private readonly clock: Clock,
    private readonly defaultCore: DefaultCoreSettings,
  ) {}

  async add(id: string, input: InstitutionInput): Promise<InstitutionView> {
    const problems: FieldProblem[] = [];
    if (!isInstitutionId(id)) problems.push({ path: 'id', message: 'must be 1 to 64 of a-z, 0-9 and -' });
    if (input.name === undefined) problems.push({ path: 'name', message: 'is required' });
    if (input.coreUrl === undefined) problems.push({ path: 'core-url', message: 'is required' });
    problems.push(...problemsOf(input));
    if ((input.coreCertFile === undefined) !== (input.coreKeyFile === undefined)) {
      problems.push({
        path: input.coreCertFile === undefined ? 'core-cert-file' : 'core-key-file',
        message: 'mutual TLS needs both --core-cert-file and --core-key-file',
      });
    }
    if (problems.length > 0) throw invalidRequest('invalid institution', { problems });
    const created = await this.store.create({
      id,
      name: input.name!.trim(),
      coreUrl: input.coreUrl!,
      coreApiKey: input.coreApiKey,
      coreCaFile: input.coreCaFile,
      coreCertFile: input.coreCertFile,
      coreKeyFile: input.coreKeyFile,
      coreTimeoutMs: input.coreTimeoutMs,
      createdAt: this.clock.now(),
    });
    if (!created) throw alreadyExists(`institution "${id}" already exists`);
    this.defaultCore.onChange?.();
    return this.view(created);
  }

  async update(id: string, input: InstitutionInput): Promise<InstitutionView> {
    const problems = problemsOf(input);
    if (id === DEFAULT_INSTITUTION) {
      for (const [field, flag] of CORE_FLAGS) {
        if (input[field] !== undefined) {
          problems.push({
            path: flag,
            message:
              'the default institution takes its core from CORE_URL, COREGATE_CORE_API_KEY and COREGATE_CORE_TIMEOUT_MS',
          });
        }
      }
    }
    const current = this.found(id, await this.store.find(id));
    // Mutual TLS needs a certificate and its key: the result of the update must have both or neither.
    const cert = input.coreCertFile ?? current.coreCertFile;
    const key = input.coreKeyFile ?? current.coreKeyFile;
    if ((cert === undefined) !== (key === undefined)) {
      problems.push({
        path: cert === undefined ? 'core-cert-file' : 'core-key-file',
        message: 'mutual TLS needs both --core-cert-file and --core-key-file',
      });
    }
    if (problems.length > 0) throw invalidRequest('invalid institution', { problems });
    const changes: InstitutionChanges = Object.fromEntries(
      Object.entries({ ...input, name: input.name?.trim() }).filter(([, value]) => value !== undefined),
    );
    const updated = this.found(id, await this.store.update(id, changes, this.clock.now()));
    this.defaultCore.onChange?.();
    return this.view(updated);
  }

  async list(): Promise<InstitutionView[]> {
    return (await this.store.list()).map((record) => this.view(record));
  }

  async show(id: string): Promise<InstitutionView> {
    return this.view(this.found(id, await this.store.find(id)));
  }

  /** A disabled institution's clients get 503 on `/core/*` and `invalid_client` for tokens. */
  async setEnabled(id: string, enabled: boolean): Promise<InstitutionView> {
    const record = this.found(id, await this.store.setEnabled(id, enabled, this.clock.now()));
    this.defaultCore.onChange?.();
    return this.view(record);
  }

  private found(id: string, record: InstitutionRecord | undefined): InstitutionRecord {
    if (!record) throw notFound(`no institution "${id}"`);
    return record;
  }

  /** Never the key itself. `default` shows the configured core. */
  private view({ coreApiKey, ...record }: InstitutionRecord): InstitutionView {
    if (record.id === DEFAULT_INSTITUTION) {
      return {
        ...record,
        coreUrl: this.defaultCore.coreUrl,
        hasApiKey: this.defaultCore.hasApiKey,
        coreTimeoutMs: this.defaultCore.coreTimeoutMs,
        coreSource: 'config',
      };
    }
    return {
      ...record,
      coreTimeoutMs: record.coreTimeoutMs ?? this.defaultCore.coreTimeoutMs,
      hasApiKey: coreApiKey !== undefined,
      coreSource: 'database',
    };
  }
}
