import type { ClientRecord, ClientGrant, Scope } from '../domain/client.js';

export interface NewClient {
  readonly id: string;
  readonly name: string;
  readonly platform: string;
  readonly scopes: readonly Scope[];
  readonly grants: readonly ClientGrant[];
  readonly allowedIps: readonly string[];
  readonly secretDigest: string;
  readonly createdAt: Date;
}

/** Persistence of registered clients. */
export interface ClientStore {
  create(client: NewClient): Promise<ClientRecord>;
  findById(id: string): Promise<ClientRecord | undefined>;
  /** Every client, oldest first. */
  list(): Promise<ClientRecord[]>;
  setEnabled(id: string, enabled: boolean, at: Date): Promise<ClientRecord | undefined>;
  replaceSecret(id: string, secretDigest: string, at: Date): Promise<ClientRecord | undefined>;
}
