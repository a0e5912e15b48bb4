import {
  FINERACT_DEFAULTS,
  parseCoreCredentials,
  type CoreCredentials,
  type CoreKind,
  type FineractCustomerKeyMode,
  type FineractSettings,
  type FineractSsnLookupMode,
  type InstitutionRecord,
} from '../../domain/institution.js';
import type { InstitutionChanges, InstitutionStore, NewInstitution } from '../../ports/institution-store.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import type { SecretSealer } from '../../ports/secret-sealer.js';
import type { Queryable } from './database.js';

interface InstitutionRow {
  id: string;
  name: string;
  core_url: string | null;
  core_api_key_sealed: string | null;
  core_ca_file: string | null;
  core_cert_file: string | null;
  core_key_file: string | null;
  core_timeout_ms: number | null;
  core_kind: CoreKind;
  fineract_tenant: string | null;
  fineract_ssn_document_type: string | null;
  fineract_customer_key: FineractCustomerKeyMode | null;
  fineract_session_ttl_seconds: number | null;
  fineract_ssn_lookup: FineractSsnLookupMode | null;
  core_credentials_sealed: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, name, core_url, core_api_key_sealed, core_ca_file, core_cert_file, core_key_file, core_timeout_ms, core_kind, fineract_tenant, fineract_ssn_document_type, fineract_customer_key, fineract_session_ttl_seconds, fineract_ssn_lookup, core_credentials_sealed, enabled, created_at, updated_at';

/** Binds a sealed API key to its institution: it cannot be copied to another one. */
function sealContext(id: string): string {
  return `core-api-key:${id}`;
}

/** Binds a sealed service user to its institution, apart from its API key. */
function credentialsContext(id: string): string {
  return `core-credentials:${id}`;
}

/** The four Fineract columns, in the order the statements name them; null for a setting not given. */
function fineractColumns(settings: Partial<FineractSettings> | undefined): Array<string | number | null> {
  return [
    settings?.tenant ?? null,
    settings?.ssnDocumentType ?? null,
    settings?.customerKey ?? null,
    settings?.sessionTtlSeconds ?? null,
  ];
}

/** A service user as sealed: `username:password`, read back by `parseCoreCredentials`. */
function credentialsText(credentials: CoreCredentials | undefined): string | undefined {
  return credentials && `${credentials.username}:${credentials.password}`;
}

/** A Fineract core's settings; a column left unset reads as the documented default. */
function fineractOf(row: InstitutionRow): FineractSettings | undefined {
  if (row.core_kind !== 'fineract') return undefined;
  return {
    tenant: row.fineract_tenant ?? FINERACT_DEFAULTS.tenant,
    ssnDocumentType: row.fineract_ssn_document_type ?? FINERACT_DEFAULTS.ssnDocumentType,
    customerKey: row.fineract_customer_key ?? FINERACT_DEFAULTS.customerKey,
    ssnLookup: row.fineract_ssn_lookup ?? FINERACT_DEFAULTS.ssnLookup,
    sessionTtlSeconds:
      row.fineract_session_ttl_seconds === null
        ? FINERACT_DEFAULTS.sessionTtlSeconds
        : Number(row.fineract_session_ttl_seconds),
  };
}

/** The key id is the second part of a sealed value (`v1.<key id>.…`), kept in its own column for rotation. */
function keyIdOf(sealed: string): string {
  return sealed.split('.')[1] ?? '';
}

function orUndefined<T>(value: T | null): T | undefined {
  return value === null ? undefined : value;
}

export class SqlInstitutionStore implements InstitutionStore {
  constructor(
    private readonly db: Queryable,
    private readonly sealer: SecretSealer,
  ) {}

  private toRecord(row: InstitutionRow): InstitutionRecord {
    return {
      id: row.id,
      name: row.name,
      coreUrl: orUndefined(row.core_url),
      coreApiKey:
        row.core_api_key_sealed === null ? undefined : this.sealer.open(row.core_api_key_sealed, sealContext(row.id)),
      coreCaFile: orUndefined(row.core_ca_file),
      coreCertFile: orUndefined(row.core_cert_file),
      coreKeyFile: orUndefined(row.core_key_file),
      coreTimeoutMs: row.core_timeout_ms === null ? undefined : Number(row.core_timeout_ms),
      coreKind: row.core_kind,
      fineract: fineractOf(row),
      coreCredentials:
        row.core_credentials_sealed === null
          ? undefined
          : parseCoreCredentials(this.sealer.open(row.core_credentials_sealed, credentialsContext(row.id))),
      enabled: row.enabled,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    };
  }

  /** The sealed value and its key id (kept in its own column for rotation); nulls when there is nothing to seal. */
  private sealed(text: string | undefined, context: string): [string | null, string | null] {
    if (text === undefined) return [null, null];
    const sealed = this.sealer.seal(text, context);
    return [sealed, keyIdOf(sealed)];
  }

  async create(institution: NewInstitution): Promise<InstitutionRecord | undefined> {
    const [sealed, keyId] = this.sealed(institution.coreApiKey, sealContext(institution.id));
    const [credentials, credentialsKeyId] = this.sealed(
      credentialsText(institution.coreCredentials),
      credentialsContext(institution.id),
    );
    const rows = await this.db.query<InstitutionRow>(
      `insert into institutions (id, name, core_url, core_api_key_sealed, core_api_key_key_id, core_ca_file, core_cert_file, core_key_file, core_timeout_ms, enabled, created_at, updated_at,
         core_kind, fineract_tenant, fineract_ssn_document_type, fineract_customer_key, fineract_session_ttl_seconds, core_credentials_sealed, core_credentials_key_id, fineract_ssn_lookup)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10, $10, $11, $12, $13, $14, $15, $16, $17, $18)
       on conflict (id) do nothing
       returning ${COLUMNS}`,
      [
        institution.id,
        institution.name,
        institution.coreUrl,
        sealed,
        keyId,
        institution.coreCaFile ?? null,
        institution.coreCertFile ?? null,
        institution.coreKeyFile ?? null,
        institution.coreTimeoutMs ?? null,
        institution.createdAt,
        institution.coreKind,
        ...fineractColumns(institution.fineract),
        credentials,
        credentialsKeyId,
        institution.fineract?.ssnLookup ?? null,
      ],
    );
    return rows[0] && this.toRecord(rows[0]);
  }

  async update(id: string, changes: InstitutionChanges, at: Date): Promise<InstitutionRecord | undefined> {
    const [sealed, keyId] = this.sealed(changes.coreApiKey, sealContext(id));
    const [credentials, credentialsKeyId] = this.sealed(
      credentialsText(changes.coreCredentials),
      credentialsContext(id),
    );
    // `coalesce`: a change left out keeps the stored value.
    const rows = await this.db.query<InstitutionRow>(
      `update institutions set
         name = coalesce($2, name),
         core_url = coalesce($3, core_url),
         core_api_key_sealed = coalesce($4, core_api_key_sealed),
         core_api_key_key_id = coalesce($5, core_api_key_key_id),
         core_ca_file = coalesce($6, core_ca_file),
         core_cert_file = coalesce($7, core_cert_file),
         core_key_file = coalesce($8, core_key_file),
         core_timeout_ms = coalesce($9, core_timeout_ms),
         updated_at = $10,
         core_kind = coalesce($11, core_kind),
         fineract_tenant = coalesce($12, fineract_tenant),
         fineract_ssn_document_type = coalesce($13, fineract_ssn_document_type),
         fineract_customer_key = coalesce($14, fineract_customer_key),
         fineract_session_ttl_seconds = coalesce($15, fineract_session_ttl_seconds),
         core_credentials_sealed = coalesce($16, core_credentials_sealed),
         core_credentials_key_id = coalesce($17, core_credentials_key_id),
         fineract_ssn_lookup = coalesce($18, fineract_ssn_lookup)
       where id = $1
       returning ${COLUMNS}`,
      [
        id,
        changes.name ?? null,
        changes.coreUrl ?? null,
        sealed,
        keyId,
        changes.coreCaFile ?? null,
        changes.coreCertFile ?? null,
        changes.coreKeyFile ?? null,
        changes.coreTimeoutMs ?? null,
        at,
        changes.coreKind ?? null,
        ...fineractColumns(changes.fineract),
        credentials,
        credentialsKeyId,
        changes.fineract?.ssnLookup ?? null,
      ],
    );
    return rows[0] && this.toRecord(rows[0]);
  }

  async setEnabled(id: string, enabled: boolean, at: Date): Promise<InstitutionRecord | undefined> {
    const rows = await this.db.query<InstitutionRow>(
      `update institutions set enabled = $2, updated_at = $3 where id = $1 returning ${COLUMNS}`,
      [id, enabled, at],
    );
    return rows[0] && this.toRecord(rows[0]);
  }

  async find(id: string): Promise<InstitutionRecord | undefined> {
    const rows = await this.db.query<InstitutionRow>(`select ${COLUMNS} from institutions where id = $1`, [id]);
    return rows[0] && this.toRecord(rows[0]);
  }

  async list(deadline?: DatabaseDeadline): Promise<InstitutionRecord[]> {
    const rows = await this.db.query<InstitutionRow>(`select ${COLUMNS} from institutions order by id`, [], deadline);
    return rows.map((row) => this.toRecord(row));
  }
}
