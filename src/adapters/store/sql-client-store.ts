import type {
  ClientChanges,
  ClientGrant,
  ClientJwks,
  ClientRecord,
  Scope,
  TokenEndpointAuthMethod,
} from '../../domain/client.js';
import type { ClientStore, NewClient } from '../../ports/client-store.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import type { Queryable } from './database.js';

interface ClientRow {
  id: string;
  name: string;
  platform: string;
  institution: string;
  scopes: string[];
  grants: string[];
  allowed_ips: string[];
  enabled: boolean;
  secret_digest: string | null;
  created_at: Date;
  secret_rotated_at: Date;
  updated_at: Date;
  previous_secret_digest: string | null;
  previous_secret_until: Date | null;
  token_endpoint_auth_method: string;
  jwks: ClientJwks | string | null;
  tls_subject_dn: string | null;
  require_bound_tokens: boolean;
}

const COLUMNS =
  'id, name, platform, institution, scopes, grants, allowed_ips, enabled, secret_digest, created_at, secret_rotated_at, updated_at, previous_secret_digest, previous_secret_until, ' +
  'token_endpoint_auth_method, jwks, tls_subject_dn, require_bound_tokens';

function toRecord(row: ClientRow): ClientRecord {
  return {
    id: row.id,
    name: row.name,
    platform: row.platform,
    institution: row.institution,
    scopes: row.scopes as Scope[],
    grants: row.grants as ClientGrant[],
    allowedIps: row.allowed_ips,
    enabled: row.enabled,
    secretDigest: row.secret_digest,
    createdAt: new Date(row.created_at),
    secretRotatedAt: new Date(row.secret_rotated_at),
    updatedAt: new Date(row.updated_at),
    previousSecretDigest: row.previous_secret_digest,
    previousSecretUntil: row.previous_secret_until === null ? null : new Date(row.previous_secret_until),
    authMethod: row.token_endpoint_auth_method as TokenEndpointAuthMethod,
    jwks: typeof row.jwks === 'string' ? (JSON.parse(row.jwks) as ClientJwks) : row.jwks,
    tlsSubjectDn: row.tls_subject_dn,
    requireBoundTokens: row.require_bound_tokens,
  };
}

export class SqlClientStore implements ClientStore {
  constructor(private readonly db: Queryable) {}

  async create(client: NewClient): Promise<ClientRecord> {
    const rows = await this.db.query<ClientRow>(
      `insert into clients (id, name, platform, institution, scopes, grants, allowed_ips, enabled, secret_digest, created_at, secret_rotated_at, updated_at,
         token_endpoint_auth_method, jwks, tls_subject_dn, require_bound_tokens)
       values ($1, $2, $3, $4, $5, $6, $7, true, $8, $9, $9, $9, $10, $11, $12, $13)
       returning ${COLUMNS}`,
      [
        client.id,
        client.name,
        client.platform,
        client.institution,
        client.scopes,
        client.grants,
        client.allowedIps,
        client.secretDigest,
        client.createdAt,
        client.authMethod ?? 'client_secret_basic',
        client.jwks ? JSON.stringify(client.jwks) : null,
        client.tlsSubjectDn ?? null,
        client.requireBoundTokens ?? false,
      ],
    );
    return toRecord(rows[0]!);
  }

  async findById(id: string, deadline?: DatabaseDeadline): Promise<ClientRecord | undefined> {
    const rows = await this.db.query<ClientRow>(`select ${COLUMNS} from clients where id = $1`, [id], deadline);
    return rows[0] && toRecord(rows[0]);
  }

  async list(): Promise<ClientRecord[]> {
    const rows = await this.db.query<ClientRow>(`select ${COLUMNS} from clients order by created_at, id`);
    return rows.map(toRecord);
  }

  async setEnabled(id: string, enabled: boolean, at: Date): Promise<ClientRecord | undefined> {
    const rows = await this.db.query<ClientRow>(
      `update clients set enabled = $2, updated_at = $3 where id = $1 returning ${COLUMNS}`,
      [id, enabled, at],
    );
    return rows[0] && toRecord(rows[0]);
  }

  async replaceSecret(
    id: string,
    secretDigest: string,
    at: Date,
    previous?: { digest: string; until: Date },
  ): Promise<ClientRecord | undefined> {
    const rows = await this.db.query<ClientRow>(
      `update clients set secret_digest = $2, secret_rotated_at = $3, updated_at = $3,
         previous_secret_digest = $4, previous_secret_until = $5
       where id = $1 returning ${COLUMNS}`,
      [id, secretDigest, at, previous?.digest ?? null, previous?.until ?? null],
    );
    return rows[0] && toRecord(rows[0]);
  }

  async update(id: string, changes: ClientChanges, at: Date): Promise<ClientRecord | undefined> {
    // coalesce: an absent change keeps the column as it is. A new authentication method
    // replaces the credentials wholesale ($7 set): its key set and subject as given, and the
    // secret dropped unless the method is client_secret_basic.
    const newMethod = changes.authMethod !== undefined;
    const rows = await this.db.query<ClientRow>(
      `update clients set name = coalesce($2, name), scopes = coalesce($3, scopes), grants = coalesce($4, grants),
         allowed_ips = coalesce($5, allowed_ips), updated_at = $6,
         token_endpoint_auth_method = coalesce($7, token_endpoint_auth_method),
         jwks = case when $7::text is not null or $8::boolean then $9::jsonb else jwks end,
         tls_subject_dn = case when $7::text is not null then $10 else tls_subject_dn end,
         secret_digest = case when $7::text is not null and $7::text <> 'client_secret_basic' then null else secret_digest end,
         previous_secret_digest = case when $7::text is not null and $7::text <> 'client_secret_basic' then null else previous_secret_digest end,
         require_bound_tokens = coalesce($11, require_bound_tokens)
       where id = $1 returning ${COLUMNS}`,
      [
        id,
        changes.name ?? null,
        changes.scopes ?? null,
        changes.grants ?? null,
        changes.allowedIps ?? null,
        at,
        changes.authMethod ?? null,
        !newMethod && changes.jwks !== undefined,
        changes.jwks ? JSON.stringify(changes.jwks) : null,
        changes.tlsSubjectDn ?? null,
        changes.requireBoundTokens ?? null,
      ],
    );
    return rows[0] && toRecord(rows[0]);
  }

  async delete(id: string): Promise<boolean> {
    // Refresh tokens go with it (on delete cascade); audit rows name it still (no foreign key).
    const rows = await this.db.query<{ id: string }>(`delete from clients where id = $1 returning id`, [id]);
    return rows.length > 0;
  }
}
