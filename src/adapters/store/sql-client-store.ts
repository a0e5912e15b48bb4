import type { ClientGrant, ClientRecord, Scope } from '../../domain/client.js';
import type { ClientStore, NewClient } from '../../ports/client-store.js';
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
  secret_digest: string;
  created_at: Date;
  secret_rotated_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, name, platform, institution, scopes, grants, allowed_ips, enabled, secret_digest, created_at, secret_rotated_at, updated_at';

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
  };
}

export class SqlClientStore implements ClientStore {
  constructor(private readonly db: Queryable) {}

  async create(client: NewClient): Promise<ClientRecord> {
    const rows = await this.db.query<ClientRow>(
      `insert into clients (id, name, platform, institution, scopes, grants, allowed_ips, enabled, secret_digest, created_at, secret_rotated_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, true, $8, $9, $9, $9)
       returning ${COLUMNS}`,
      [client.id, client.name, client.platform, client.institution, client.scopes, client.grants, client.allowedIps, client.secretDigest, client.createdAt],
    );
    return toRecord(rows[0]!);
  }

  async findById(id: string): Promise<ClientRecord | undefined> {
    const rows = await this.db.query<ClientRow>(`select ${COLUMNS} from clients where id = $1`, [id]);
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

  async replaceSecret(id: string, secretDigest: string, at: Date): Promise<ClientRecord | undefined> {
    const rows = await this.db.query<ClientRow>(
      `update clients set secret_digest = $2, secret_rotated_at = $3, updated_at = $3 where id = $1 returning ${COLUMNS}`,
      [id, secretDigest, at],
    );
    return rows[0] && toRecord(rows[0]);
  }
}
