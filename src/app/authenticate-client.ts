import type { ClientRecord } from '../domain/client.js';
import { invalidClient } from '../domain/errors.js';
import type { ClientStore } from '../ports/client-store.js';
import type { Clock } from '../ports/clock.js';
import type { CredentialHasher } from '../ports/credential-hasher.js';

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * Authenticates a client by id and secret (client_secret_basic). Every failure is
 * the same `invalid_client`; the real cause goes only to the log.
 */
export class ClientAuthenticator {
  /** Compared against when the client does not exist, so both paths cost one HMAC. */
  private readonly decoyDigest: string;

  constructor(
    /** The client records: on a server, a cache the change feed keeps current (see services.ts). */
    private readonly clients: Pick<ClientStore, 'findById'>,
    private readonly hasher: CredentialHasher,
    /** A client of a disabled institution cannot get tokens (docs/behaviour.md#disabled-institutions); without it every institution counts as enabled. */
    private readonly institutions?: { isEnabled(id: string): Promise<boolean> },
    /** For the grace period of a rotated secret; without it a previous secret never counts. */
    private readonly clock?: Clock,
  ) {
    this.decoyDigest = hasher.digest(hasher.generate('decoy_'));
  }

  async authenticate(credentials: ClientCredentials): Promise<ClientRecord> {
    const client = await this.clients.findById(credentials.clientId);
    const secretMatches = this.hasher.matches(credentials.clientSecret, client?.secretDigest ?? this.decoyDigest);
    if (!client) throw invalidClient('unknown client_id');
    const known = { id: client.id, platform: client.platform, institution: client.institution };
    if (!secretMatches && !this.previousSecretMatches(client, credentials.clientSecret)) throw invalidClient(`wrong secret for ${client.id}`, { knownClient: known });
    if (!client.enabled) throw invalidClient(`client ${client.id} is disabled`, { knownClient: known });
    if (this.institutions && !(await this.institutions.isEnabled(client.institution))) {
      throw invalidClient(`institution ${client.institution} of client ${client.id} is disabled`, { knownClient: known });
    }
    return client;
  }

  /** `rotate-secret --grace`: the previous secret, while its grace period lasts. */
  private previousSecretMatches(client: ClientRecord, secret: string): boolean {
    const { previousSecretDigest: digest, previousSecretUntil: until } = client;
    if (!digest || !until || !this.clock || this.clock.now().getTime() >= until.getTime()) return false;
    return this.hasher.matches(secret, digest);
  }
}
