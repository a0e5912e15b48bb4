/**
 * The operator's management of institutions (`coregate institutions …`,
 * docs/behaviour.md#institution-commands). Validation errors name the CLI flag at fault.
 * The core API key and the core's service user are taken here and never given back: an
 * institution shows only whether it has them.
 */
import { alreadyExists, invalidRequest, notFound, type FieldProblem } from '../domain/errors.js';
import {
  CORE_KINDS,
  DEFAULT_INSTITUTION,
  FINERACT_CUSTOMER_KEY_MODES,
  FINERACT_SSN_LOOKUP_MODES,
  FINERACT_DEFAULTS,
  isInstitutionId,
  parseCoreCredentials,
  type CoreCredentials,
  type CoreKind,
  type CoreSettingsSource,
  type FineractCustomerKeyMode,
  type FineractSsnLookupMode,
  type FineractSettings,
  type Institution,
  type InstitutionRecord,
} from '../domain/institution.js';
import type { Clock } from '../ports/clock.js';
import type { InstitutionChanges, InstitutionStore } from '../ports/institution-store.js';

/**
 * `institutions add` / `update`: a core API key and a service user (`username:password`) in
 * clear (read from files by the CLI), file paths absolute.
 */
export interface InstitutionInput {
  readonly name?: string | undefined;
  readonly coreUrl?: string | undefined;
  readonly coreApiKey?: string | undefined;
  readonly coreCaFile?: string | undefined;
  readonly coreCertFile?: string | undefined;
  readonly coreKeyFile?: string | undefined;
  readonly coreTimeoutMs?: number | undefined;
  /** `coregate` (the reference core protocol) or `fineract`. */
  readonly coreKind?: string | undefined;
  /** `username:password`, one line. */
  readonly coreCredentials?: string | undefined;
  readonly fineractTenant?: string | undefined;
  readonly fineractSsnDocumentType?: string | undefined;
  readonly fineractCustomerKey?: string | undefined;
  /** `client-search`, `identifier-search` or `off`. */
  readonly fineractSsnLookup?: string | undefined;
  readonly fineractSessionTtlSeconds?: number | undefined;
}

/** An institution as the operator sees it, saying where its core settings come from. */
export interface InstitutionView extends Institution {
  readonly coreSource: CoreSettingsSource;
}

/** The core of `default`, from the configuration (CORE_URL, COREGATE_CORE_KIND, COREGATE_CORE_API_KEY, COREGATE_FINERACT_…). */
export interface DefaultCoreSettings {
  /** `undefined`: the built-in simulator. */
  readonly coreUrl: string | undefined;
  readonly hasApiKey: boolean;
  readonly coreTimeoutMs: number;
  readonly coreKind: CoreKind;
  /** Set when `coreKind` is `fineract`. */
  readonly fineract: FineractSettings | undefined;
  readonly hasCredentials: boolean;
  /** Called after every change, so that this process sees it at once. */
  readonly onChange?: () => void;
}

export const MIN_CORE_TIMEOUT_MS = 100;
export const MAX_CORE_TIMEOUT_MS = 120_000;
/** Bounds of a Fineract session's lifetime: at least a minute, at most a day. */
export const MIN_FINERACT_SESSION_TTL_SECONDS = 60;
export const MAX_FINERACT_SESSION_TTL_SECONDS = 86_400;
/** The key is sent as a header: visible ASCII only. */
const API_KEY = /^[\x21-\x7e]{1,1024}$/;
/** The tenant is sent as a header (`Fineract-Platform-TenantId`): visible ASCII only. */
const TENANT = /^[\x21-\x7e]{1,100}$/;
/** A document type's name as Fineract shows it ("SSN", "Social Security Number"): printable, one line. */
const DOCUMENT_TYPE = /^[\x20-\x7e]{1,100}$/;
const MAX_CREDENTIALS_LENGTH = 1024;

const CORE_FLAGS: ReadonlyArray<readonly [keyof InstitutionInput, string]> = [
  ['coreUrl', 'core-url'],
  ['coreApiKey', 'core-api-key-file'],
  ['coreCaFile', 'core-ca-file'],
  ['coreCertFile', 'core-cert-file'],
  ['coreKeyFile', 'core-key-file'],
  ['coreTimeoutMs', 'core-timeout-ms'],
  ['coreKind', 'core-kind'],
  ['coreCredentials', 'core-credentials-file'],
  ['fineractTenant', 'fineract-tenant'],
  ['fineractSsnDocumentType', 'fineract-ssn-document-type'],
  ['fineractCustomerKey', 'fineract-customer-key'],
  ['fineractSsnLookup', 'fineract-ssn-lookup'],
  ['fineractSessionTtlSeconds', 'fineract-session-ttl-seconds'],
];

/** The options that only a Fineract core takes. */
const FINERACT_FLAGS = CORE_FLAGS.filter(([field]) => field === 'coreCredentials' || field.startsWith('fineract'));

function isCoreKind(value: string): value is CoreKind {
  return (CORE_KINDS as readonly string[]).includes(value);
}

function isCustomerKeyMode(value: string): value is FineractCustomerKeyMode {
  return (FINERACT_CUSTOMER_KEY_MODES as readonly string[]).includes(value);
}

function isSsnLookupMode(value: string): value is FineractSsnLookupMode {
  return (FINERACT_SSN_LOOKUP_MODES as readonly string[]).includes(value);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

function wholeNumberProblems(value: number | undefined, min: number, max: number, path: string): FieldProblem[] {
  if (value === undefined || (Number.isInteger(value) && value >= min && value <= max)) return [];
  return [{ path, message: `must be a whole number from ${min} to ${max}` }];
}

function credentialsOf(text: string): CoreCredentials | undefined {
  return text.length > MAX_CREDENTIALS_LENGTH ? undefined : parseCoreCredentials(text);
}

/** The Fineract settings given, each one only when set. */
function fineractChanges(input: InstitutionInput): Partial<FineractSettings> {
  return {
    ...(input.fineractTenant === undefined ? {} : { tenant: input.fineractTenant }),
    ...(input.fineractSsnDocumentType === undefined ? {} : { ssnDocumentType: input.fineractSsnDocumentType.trim() }),
    ...(input.fineractCustomerKey === undefined
      ? {}
      : { customerKey: input.fineractCustomerKey as FineractCustomerKeyMode }),
    ...(input.fineractSessionTtlSeconds === undefined ? {} : { sessionTtlSeconds: input.fineractSessionTtlSeconds }),
    ...(input.fineractSsnLookup === undefined ? {} : { ssnLookup: input.fineractSsnLookup as FineractSsnLookupMode }),
  };
}

/**
 * What the resulting kind of core needs and refuses: a Fineract core a tenant and a service
 * user (given now or stored), and no API key; a reference-protocol core none of Fineract's options.
 */
function kindProblems(
  kind: CoreKind,
  input: InstitutionInput,
  stored: { readonly fineract: boolean; readonly credentials: boolean },
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (kind === 'fineract') {
    if (input.fineractTenant === undefined && !stored.fineract)
      problems.push({ path: 'fineract-tenant', message: 'is required with --core-kind fineract' });
    if (input.coreCredentials === undefined && !stored.credentials)
      problems.push({ path: 'core-credentials-file', message: 'is required with --core-kind fineract' });
    if (input.coreApiKey !== undefined) {
      problems.push({
        path: 'core-api-key-file',
        message: 'is for the reference core protocol: a Fineract core takes --core-credentials-file',
      });
    }
  } else {
    for (const [field, flag] of FINERACT_FLAGS) {
      if (input[field] !== undefined) problems.push({ path: flag, message: 'needs --core-kind fineract' });
    }
  }
  return problems;
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
  if (input.coreKind !== undefined && !isCoreKind(input.coreKind))
    problems.push({ path: 'core-kind', message: `must be one of ${CORE_KINDS.join(', ')}` });
  if (input.coreCredentials !== undefined && !credentialsOf(input.coreCredentials)) {
    problems.push({
      path: 'core-credentials-file',
      message: `must hold username:password on one line (a username without ":", a password, at most ${MAX_CREDENTIALS_LENGTH} characters)`,
    });
  }
  if (input.fineractTenant !== undefined && !TENANT.test(input.fineractTenant))
    problems.push({ path: 'fineract-tenant', message: 'must be 1 to 100 visible ASCII characters' });
  if (input.fineractSsnDocumentType !== undefined && !DOCUMENT_TYPE.test(input.fineractSsnDocumentType.trim()))
    problems.push({ path: 'fineract-ssn-document-type', message: 'must be 1 to 100 printable ASCII characters' });
  if (input.fineractCustomerKey !== undefined && !isCustomerKeyMode(input.fineractCustomerKey))
    problems.push({
      path: 'fineract-customer-key',
      message: `must be one of ${FINERACT_CUSTOMER_KEY_MODES.join(', ')}`,
    });
  if (input.fineractSsnLookup !== undefined && !isSsnLookupMode(input.fineractSsnLookup))
    problems.push({ path: 'fineract-ssn-lookup', message: `must be one of ${FINERACT_SSN_LOOKUP_MODES.join(', ')}` });
  problems.push(
    ...wholeNumberProblems(
      input.fineractSessionTtlSeconds,
      MIN_FINERACT_SESSION_TTL_SECONDS,
      MAX_FINERACT_SESSION_TTL_SECONDS,
      'fineract-session-ttl-seconds',
    ),
    ...wholeNumberProblems(input.coreTimeoutMs, MIN_CORE_TIMEOUT_MS, MAX_CORE_TIMEOUT_MS, 'core-timeout-ms'),
  );
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
    const kind = input.coreKind ?? 'coregate';
    // An unknown kind is refused above; what it would need cannot be said.
    if (isCoreKind(kind)) problems.push(...kindProblems(kind, input, { fineract: false, credentials: false }));
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
      coreKind: kind as CoreKind,
      fineract: kind === 'fineract' ? { ...FINERACT_DEFAULTS, ...fineractChanges(input) } : undefined,
      coreCredentials: input.coreCredentials === undefined ? undefined : credentialsOf(input.coreCredentials),
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
              'the default institution takes its core from the configuration (CORE_URL, COREGATE_CORE_KIND, COREGATE_CORE_API_KEY, COREGATE_FINERACT_…, COREGATE_CORE_TIMEOUT_MS)',
          });
        }
      }
    }
    const current = this.found(id, await this.store.find(id));
    if (id !== DEFAULT_INSTITUTION) {
      const kind = input.coreKind ?? current.coreKind;
      if (isCoreKind(kind)) {
        problems.push(
          ...kindProblems(kind, input, {
            fineract: current.fineract !== undefined,
            credentials: current.coreCredentials !== undefined,
          }),
        );
      }
    }
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
    const fineract = fineractChanges(input);
    // Switched to Fineract without settings stored: the defaults, and what was given.
    const fineractSettings =
      input.coreKind === 'fineract' && current.fineract === undefined
        ? { ...FINERACT_DEFAULTS, ...fineract }
        : fineract;
    const given = {
      name: input.name?.trim(),
      coreUrl: input.coreUrl,
      coreApiKey: input.coreApiKey,
      coreCaFile: input.coreCaFile,
      coreCertFile: input.coreCertFile,
      coreKeyFile: input.coreKeyFile,
      coreTimeoutMs: input.coreTimeoutMs,
      coreKind: input.coreKind as CoreKind | undefined,
      coreCredentials: input.coreCredentials === undefined ? undefined : credentialsOf(input.coreCredentials),
      fineract: Object.keys(fineractSettings).length === 0 ? undefined : fineractSettings,
    };
    const changes: InstitutionChanges = Object.fromEntries(
      Object.entries(given).filter(([, value]) => value !== undefined),
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

  /** Never the key or the service user. `default` shows the configured core. */
  private view({ coreApiKey, coreCredentials, ...record }: InstitutionRecord): InstitutionView {
    if (record.id === DEFAULT_INSTITUTION) {
      return {
        ...record,
        coreUrl: this.defaultCore.coreUrl,
        hasApiKey: this.defaultCore.hasApiKey,
        coreTimeoutMs: this.defaultCore.coreTimeoutMs,
        coreKind: this.defaultCore.coreKind,
        fineract: this.defaultCore.fineract,
        hasCredentials: this.defaultCore.hasCredentials,
        coreSource: 'config',
      };
    }
    return {
      ...record,
      coreTimeoutMs: record.coreTimeoutMs ?? this.defaultCore.coreTimeoutMs,
      hasApiKey: coreApiKey !== undefined,
      hasCredentials: coreCredentials !== undefined,
      coreSource: 'database',
    };
  }
}
