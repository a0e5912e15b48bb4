import type { Client, ClientRecord } from '../domain/client.js';

/** A client as first stored: enabled, its secret set when it was created. */
export type NewClient = Pick<Client, 'id' | 'name' | 'platform' | 'institution' | 'scopes' | 'grants' | 'allowedIps' | 'createdAt'> & {
  readonly secretDigest: string;
};

/** Persistence of registered clients. */
export interface ClientStore {
  create(client: NewClient): Promise<ClientRecord>;
  findById(id: string): Promise<ClientRecord | undefined>;
  /** Every client, oldest first. */
  list(): Promise<ClientRecord[]>;
  setEnabled(id: string, enabled: boolean, at: Date): Promise<ClientRecord | undefined>;
  replaceSecret(id: string, secretDigest: string, at: Date): Promise<ClientRecord | undefined>;
}
