import type { Client, ClientChanges, ClientRecord } from '../domain/client.js';
import type { DatabaseDeadline } from './database-deadline.js';

/** A client as first stored: enabled, its secret set when it was created. */
export type NewClient = Pick<
  Client,
  'id' | 'name' | 'platform' | 'institution' | 'scopes' | 'grants' | 'allowedIps' | 'createdAt'
> &
  Partial<Pick<Client, 'authMethod' | 'jwks' | 'tlsSubjectDn' | 'requireBoundTokens'>> & {
    /** `null` for a client that authenticates with a key or a certificate. */
    readonly secretDigest: string | null;
  };

/** Persistence of registered clients. */
export interface ClientStore {
  create(client: NewClient): Promise<ClientRecord>;
  /** `deadline`: that of the request that reads it (`database-deadline.ts`). */
  findById(id: string, deadline?: DatabaseDeadline): Promise<ClientRecord | undefined>;
  /** Every client, oldest first. */
  list(): Promise<ClientRecord[]>;
  setEnabled(id: string, enabled: boolean, at: Date): Promise<ClientRecord | undefined>;
  /** With `previous`, the old digest stays accepted until `previous.until` (a grace period). */
  replaceSecret(
    id: string,
    secretDigest: string,
    at: Date,
    previous?: { digest: string; until: Date },
  ): Promise<ClientRecord | undefined>;
  update(id: string, changes: ClientChanges, at: Date): Promise<ClientRecord | undefined>;
  /** Deletes the client and its refresh tokens; `false` if there was none. */
  delete(id: string): Promise<boolean>;
}
