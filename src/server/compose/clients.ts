/** The clients: the one cache of their records, their registry and their authentication. */
import { ClientAuthenticator, type ClientAssertionCheck } from '../../app/authenticate-client.js';
import { ClientDirectory } from '../../app/client-directory.js';
import { ClientRegistry } from '../../app/client-registry.js';
import type { InstitutionRegistry } from '../../app/institution-registry.js';
import type { HmacCredentialHasher } from '../../adapters/crypto/hmac-credential-hasher.js';
import { SqlClientStore } from '../../adapters/store/sql-client-store.js';
import type { SqlInstitutionStore } from '../../adapters/store/sql-institution-store.js';
import type { ChangeFeed } from '../../ports/change-feed.js';
import type { Basics } from './basics.js';

export interface Clients {
  /** The one cache of client records, for the token endpoint and the bearer check. */
  readonly clientDirectory: ClientDirectory;
  readonly clientRegistry: ClientRegistry;
  readonly authenticator: ClientAuthenticator;
}

export interface ClientDeps {
  readonly hasher: HmacCredentialHasher;
  readonly institutionStore: SqlInstitutionStore;
  readonly institutions: InstitutionRegistry;
  /** Drops a changed client's record at once; without it only the cache lifetime bounds it. */
  readonly changeFeed: ChangeFeed | undefined;
  /** How `private_key_jwt` assertions are checked (docs/client-security.md). */
  readonly assertionCheck: ClientAssertionCheck;
}

export function buildClients(
  { config, clock, database }: Basics,
  { hasher, institutionStore, institutions, changeFeed, assertionCheck }: ClientDeps,
): Clients {
  const clients = new SqlClientStore(database);
  const clientDirectory = new ClientDirectory(clients, clock, config.clientCacheSeconds, undefined, changeFeed);
  return {
    clientDirectory,
    clientRegistry: new ClientRegistry(clients, hasher, clock, institutionStore, (id) => clientDirectory.forget(id)),
    authenticator: new ClientAuthenticator(clientDirectory, hasher, institutions, clock, assertionCheck),
  };
}
