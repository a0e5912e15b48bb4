/**
 * The operator's management of institutions (`coregate institutions …`,
 * docs/behaviour.md#institution-commands). Validation errors name the field at fault (the CLI
 * shows its flag); the settings the environment also sets follow one rule each
 * (src/domain/institution-settings.ts).
 * The core API key and the core's service user are taken here and never given back: an
 * institution shows only whether it has them.
 */
import { alreadyExists, invalidRequest, notFound, type FieldProblem } from '../domain/errors.js';
import {
  CORE_KINDS,
  DEFAULT_INSTITUTION,
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
  type InstitutionCore,
  type InstitutionRecord,
} from '../domain/institution.js';
import {
  INSTITUTION_SETTING_RULES,
  institutionSettingProblem,
  type InstitutionSettingName,
} from '../domain/institution-settings.js';
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

/** The core of `default` and who hears of changes. */
export interface DefaultInstitutionSettings {
  /** `default`'s core as the configuration gives it (src/config/default-institution.ts); no URL: the built-in simulator. */
  readonly core: InstitutionCore;
  /** Called after every change, so that this process sees it at once. */
  readonly onChange?: () => void;
}

const MAX_CREDENTIALS_LENGTH = 1024;

/**
 * The settings judged by their one rule (src/domain/institution-settings.ts), in its order: a
 * setting added there is checked, trimmed and kept from `default` here without another line.
 */
const RULED_FIELDS = Object.keys(INSTITUTION_SETTING_RULES) as InstitutionSettingName[];

/** The fields that describe an institution's core: `default` takes them from the configuration. */
const CORE_FIELDS: ReadonlyArray<keyof InstitutionInput> = [
  ...RULED_FIELDS,
  'coreCredentials',
  'coreCaFile',
  'coreCertFile',
  'coreKeyFile',
];

/** The fields that only a Fineract core takes. */
const FINERACT_FIELDS = CORE_FIELDS.filter((field) => field === 'coreCredentials' || field.startsWith('fineract'));

function isCoreKind(value: string): value is CoreKind {
  return (CORE_KINDS as readonly string[]).includes(value);
}

function credentialsOf(text: string): CoreCredentials | undefined {
  return text.length > MAX_CREDENTIALS_LENGTH ? undefined : parseCoreCredentials(text);
}

/** The input with its settings' text trimmed, as the environment reads the same settings. */
function trimmed(input: InstitutionInput): InstitutionInput {
  const copy: Record<string, unknown> = { ...input };
  for (const field of RULED_FIELDS) {
    const value = copy[field];
    if (typeof value === 'string') copy[field] = value.trim();
  }
  return copy;
}

/** The Fineract settings given, each one only when set. */
function fineractChanges(input: InstitutionInput): Partial<FineractSettings> {
  return {
    ...(input.fineractTenant === undefined ? {} : { tenant: input.fineractTenant }),
    ...(input.fineractSsnDocumentType === undefined ? {} : { ssnDocumentType: input.fineractSsnDocumentType }),
    ...(input.fineractCustomerKey === undefined
      ? {}
      : { customerKey: input.fineractCustomerKey as FineractCustomerKeyMode }),
    ...(input.fineractSessionTtlSeconds === undefined ? {} : { sessionTtlSeconds: input.fineractSessionTtlSeconds }),
    ...(input.fineractSsnLookup === undefined ? {} : { ssnLookup: input.fineractSsnLookup as FineractSsnLookupMode }),
  };
}

/**
 * What the resulting kind of core needs and refuses: a Fineract core a tenant and a service
 * user (given now or stored), and no API key; a reference-protocol core none of Fineract's fields.
 * Messages name other fields by their field names (the CLI shows its flags instead).
 */
function kindProblems(
  kind: CoreKind,
  input: InstitutionInput,
  stored: { readonly fineract: boolean; readonly credentials: boolean },
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (kind === 'fineract') {
    if (input.fineractTenant === undefined && !stored.fineract)
      problems.push({ path: 'fineractTenant', message: 'is required with coreKind fineract' });
    if (input.coreCredentials === undefined && !stored.credentials)
      problems.push({ path: 'coreCredentials', message: 'is required with coreKind fineract' });
    if (input.coreApiKey !== undefined) {
      problems.push({
        path: 'coreApiKey',
        message: 'is for the reference core protocol: a Fineract core takes coreCredentials',
      });
    }
  } else {
    for (const field of FINERACT_FIELDS) {
      if (input[field] !== undefined) problems.push({ path: field, message: 'needs coreKind fineract' });
    }
  }
  return problems;
}

/**
 * The problems of the given fields (a field left `undefined` is not checked), each named by its
 * field. The settings the environment also sets are judged by their one rule.
 */
export function institutionInputProblems(input: InstitutionInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (input.name !== undefined && (input.name.trim().length === 0 || input.name.trim().length > 200))
    problems.push({ path: 'name', message: 'must be 1 to 200 characters' });
  for (const field of RULED_FIELDS) {
    const value = input[field];
    const problem = value === undefined ? undefined : institutionSettingProblem(field, value);
    if (problem !== undefined) problems.push({ path: field, message: problem });
  }
  if (input.coreCredentials !== undefined && !credentialsOf(input.coreCredentials)) {
    problems.push({
      path: 'coreCredentials',
      message: `must hold username:password on one line (a username without ":", a password, at most ${MAX_CREDENTIALS_LENGTH} characters)`,
    });
  }
  return problems;
}

export class InstitutionAdmin {
  constructor(
    private readonly store: InstitutionStore,
    private readonly clock: Clock,
    private readonly defaultInstitution: DefaultInstitutionSettings,
  ) {}

  async add(id: string, raw: InstitutionInput): Promise<InstitutionView> {
    const input = trimmed(raw);
    const problems: FieldProblem[] = [];
    if (!isInstitutionId(id)) problems.push({ path: 'id', message: 'must be 1 to 64 of a-z, 0-9 and -' });
    if (input.name === undefined) problems.push({ path: 'name', message: 'is required' });
    if (input.coreUrl === undefined) problems.push({ path: 'coreUrl', message: 'is required' });
    problems.push(...institutionInputProblems(input));
    const kind = input.coreKind ?? 'coregate';
    // An unknown kind is refused above; what it would need cannot be said.
    if (isCoreKind(kind)) problems.push(...kindProblems(kind, input, { fineract: false, credentials: false }));
    if ((input.coreCertFile === undefined) !== (input.coreKeyFile === undefined)) {
      problems.push({
        path: input.coreCertFile === undefined ? 'coreCertFile' : 'coreKeyFile',
        message: 'mutual TLS needs both coreCertFile and coreKeyFile',
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
    this.defaultInstitution.onChange?.();
    return this.view(created);
  }

  async update(id: string, raw: InstitutionInput): Promise<InstitutionView> {
    const input = trimmed(raw);
    const problems = institutionInputProblems(input);
    if (id === DEFAULT_INSTITUTION) {
      for (const field of CORE_FIELDS) {
        if (input[field] !== undefined) {
          problems.push({
            path: field,
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
        path: cert === undefined ? 'coreCertFile' : 'coreKeyFile',
        message: 'mutual TLS needs both coreCertFile and coreKeyFile',
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
    this.defaultInstitution.onChange?.();
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
    this.defaultInstitution.onChange?.();
    return this.view(record);
  }

  private found(id: string, record: InstitutionRecord | undefined): InstitutionRecord {
    if (!record) throw notFound(`no institution "${id}"`);
    return record;
  }

  /** Never the key or the service user. `default` shows the configured core. */
  private view(record: InstitutionRecord): InstitutionView {
    const configured = record.id === DEFAULT_INSTITUTION;
    const { coreApiKey, coreCredentials, ...shown } = configured
      ? { ...record, ...this.defaultInstitution.core }
      : { ...record, coreTimeoutMs: record.coreTimeoutMs ?? this.defaultInstitution.core.coreTimeoutMs };
    return {
      ...shown,
      hasApiKey: coreApiKey !== undefined,
      hasCredentials: coreCredentials !== undefined,
      coreSource: configured ? 'config' : 'database',
    };
  }
}
