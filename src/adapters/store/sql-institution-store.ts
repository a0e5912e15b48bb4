import type { InstitutionRecord } from '../../domain/institution.js';
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
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, name, core_url, core_api_key_sealed, core_ca_file, core_cert_file, core_key_file, core_timeout_ms, enabled, created_at, updated_at';

/** Binds a sealed API key to its institution: it cannot be copied to another one. */
function sealContext(id: string): string {
  return `core-api-key:${id}`;
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
      enabled: row.enabled,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    };
  }

  private sealed(id: string, apiKey: string | undefined): [string | null, string | null] {
    if (apiKey === undefined) return [null, null];
    const sealed = this.sealer.seal(apiKey, sealContext(id));
    return [sealed, keyIdOf(sealed)];
  }

  async create(institution: NewInstitution): Promise<InstitutionRecord | undefined> {
    const [sealed, keyId] = this.sealed(institution.id, institution.coreApiKey);
    const rows = await this.db.query<InstitutionRow>(
      `insert into institutions (id, name, core_url, core_api_key_sealed, core_api_key_key_id, core_ca_file, core_cert_file, core_key_file, core_timeout_ms, enabled, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10, $10)
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
      ],
    );
    return rows[0] && this.toRecord(rows[0]);
  }

  async update(id: string, changes: InstitutionChanges, at: Date): Promise<InstitutionRecord | undefined> {
    const [sealed, keyId] = this.sealed(id, changes.coreApiKey);
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
         updated_at = $10
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
