import { createHash } from 'node:crypto';
import type { ClientJwks, ClientRecord } from '../domain/client.js';
import { invalidClient } from '../domain/errors.js';
import { InvalidProof, type ClientAssertionVerifier } from '../ports/client-proofs.js';
import type { ClientStore } from '../ports/client-store.js';
import type { Clock } from '../ports/clock.js';
import type { CredentialHasher } from '../ports/credential-hasher.js';
import type { DatabaseDeadline } from '../ports/database-deadline.js';
import type { ReplayGuard } from '../ports/replay-guard.js';
import { firstUseOrUnavailable } from './single-use-check.js';

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** A client certificate presented over mutual TLS (RFC 8705), as the transport read it. */
export interface PresentedCertificate {
  /** The subject as node:crypto writes it: one `ATTR=value` per line. */
  readonly subjectDn: string;
  /** base64url SHA-256 of the DER certificate: what `cnf["x5t#S256"]` names (RFC 8705 §3.1). */
  readonly thumbprint: string;
  /** The chain was checked against COREGATE_TLS_CLIENT_CA_FILE (by the TLS handshake, or for a proxy's header). */
  readonly chainVerified: boolean;
}

/** A DN's attributes, order- and case-insensitive on names: `CN=a,O=B` and `O=B\nCN=a` are one DN. */
function dnAttributes(dn: string): string {
  return dn
    .split(/[\n,]/)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const equals = part.indexOf('=');
      return equals < 0 ? part : `${part.slice(0, equals).trim().toUpperCase()}=${part.slice(equals + 1).trim()}`;
    })
    .sort()
    .join('\n');
}

/** base64url SHA-256 of each certificate in a JWKS's `x5c` (its first, the key's own). */
function jwksThumbprints(jwks: ClientJwks | null): string[] {
  return (jwks?.keys ?? []).flatMap((key) => {
    const x5c = key['x5c'];
    return Array.isArray(x5c) && typeof x5c[0] === 'string'
      ? [createHash('sha256').update(Buffer.from(x5c[0], 'base64')).digest('base64url')]
      : [];
  });
}

/** What verifies `private_key_jwt` assertions and keeps each one single-use. */
export interface ClientAssertionCheck {
  readonly verifier: ClientAssertionVerifier;
  readonly replays: ReplayGuard;
  /** The `aud` values an assertion may name: the issuer and the token endpoint URL (RFC 7523 §3). */
  readonly audiences: () => readonly string[];
}

/** The key under which a proof's `jti` is remembered: fixed length, whatever the client sent. */
function proofReplayKey(kind: 'client_assertion', scope: string, jti: string): string {
  return `${kind}:${createHash('sha256').update(`${scope}\u0000${jti}`).digest('base64url')}`;
}

/**
 * Authenticates a client by the method it is registered with: id and secret
 * (client_secret_basic) or a signed assertion (private_key_jwt, RFC 7523). Every
 * failure is the same `invalid_client`; the real cause goes only to the log.
 * `deadline` on a method: the request's time for the database (`ports/database-deadline.ts`).
 */
export class ClientAuthenticator {
  /** Compared against when the client does not exist, so both paths cost one HMAC. */
  private readonly decoyDigest: string;

  constructor(
    /** The client records: on a server, a cache the change feed keeps current (see services.ts). */
    private readonly clients: Pick<ClientStore, 'findById'>,
    private readonly hasher: CredentialHasher,
    /** A client of a disabled institution cannot get tokens (docs/behaviour.md#disabled-institutions); without it every institution counts as enabled. */
    private readonly institutions?: { isEnabled(id: string, deadline?: DatabaseDeadline): Promise<boolean> },
    /** For the grace period of a rotated secret; without it a previous secret never counts. */
    private readonly clock?: Clock,
    /** Without it no assertion is accepted. */
    private readonly assertions?: ClientAssertionCheck,
  ) {
    this.decoyDigest = hasher.digest(hasher.generate('decoy_'));
  }

  async authenticate(credentials: ClientCredentials, deadline?: DatabaseDeadline): Promise<ClientRecord> {
    const client = await this.clients.findById(credentials.clientId, deadline);
    const secretMatches = this.hasher.matches(credentials.clientSecret, client?.secretDigest ?? this.decoyDigest);
    if (!client) throw invalidClient('unknown client_id');
    const known = { id: client.id, platform: client.platform, institution: client.institution };
    if (client.authMethod !== 'client_secret_basic')
      throw invalidClient(`client ${client.id} authenticates with ${client.authMethod}, not a secret`, {
        knownClient: known,
      });
    if (!secretMatches && !this.previousSecretMatches(client, credentials.clientSecret))
      throw invalidClient(`wrong secret for ${client.id}`, { knownClient: known });
    return this.admitted(client, deadline);
  }

  /**
   * `private_key_jwt` (RFC 7523 §2.2): the assertion names its client, is signed by one of
   * that client's registered keys, and is used once, in any process.
   */
  async authenticateWithAssertion(assertion: string, deadline?: DatabaseDeadline): Promise<ClientRecord> {
    if (!this.assertions || !this.clock) throw invalidClient('client assertions are not accepted here');
    const { verifier, replays, audiences } = this.assertions;
    const clientId = verifier.claimedClient(assertion);
    if (clientId === undefined) throw invalidClient('client assertion unreadable, or its iss and sub differ');
    const client = await this.clients.findById(clientId, deadline);
    // No client, or one without keys: a signature is checked all the same (against a decoy key),
    // so that the answer's time does not tell which client ids exist.
    if (!client) {
      await verifier.verifyAgainstDecoy(assertion);
      throw invalidClient('unknown client_id in the client assertion');
    }
    const known = { id: client.id, platform: client.platform, institution: client.institution };
    if (client.authMethod !== 'private_key_jwt' || !client.jwks) {
      await verifier.verifyAgainstDecoy(assertion);
      throw invalidClient(`client ${client.id} does not authenticate with private_key_jwt`, { knownClient: known });
    }
    const now = this.clock.now();
    let verified;
    try {
      verified = await verifier.verify(assertion, client.jwks, { clientId: client.id, audiences: audiences(), now });
    } catch (error) {
      if (error instanceof InvalidProof)
        throw invalidClient(`client assertion of ${client.id} refused: ${error.reason}`, { knownClient: known });
      throw error;
    }
    // Single use is checked last: a refused assertion does not use up its jti.
    if (
      !(await firstUseOrUnavailable(
        replays,
        proofReplayKey('client_assertion', client.id, verified.jti),
        new Date(verified.exp * 1000),
        now,
        deadline,
      ))
    ) {
      throw invalidClient(`client assertion of ${client.id} replayed`, { knownClient: known });
    }
    return this.admitted(client, deadline);
  }

  /**
   * Mutual TLS (RFC 8705 §2): `tls_client_auth` — a certificate issued by the configured CA
   * with the registered subject DN; `self_signed_tls_client_auth` — the very certificate
   * registered in the client's JWKS (`x5c`), matched by its SHA-256 thumbprint.
   */
  async authenticateWithCertificate(
    clientId: string,
    certificate: PresentedCertificate,
    deadline?: DatabaseDeadline,
  ): Promise<ClientRecord> {
    const client = await this.clients.findById(clientId, deadline);
    if (!client) throw invalidClient('unknown client_id with a client certificate');
    const known = { id: client.id, platform: client.platform, institution: client.institution };
    if (client.authMethod === 'tls_client_auth') {
      if (!certificate.chainVerified)
        throw invalidClient(`certificate of ${client.id} not issued by the configured client CA`, {
          knownClient: known,
        });
      if (client.tlsSubjectDn === null || dnAttributes(client.tlsSubjectDn) !== dnAttributes(certificate.subjectDn)) {
        throw invalidClient(`certificate subject is not the one registered for ${client.id}`, { knownClient: known });
      }
    } else if (client.authMethod === 'self_signed_tls_client_auth') {
      if (!jwksThumbprints(client.jwks).includes(certificate.thumbprint))
        throw invalidClient(`certificate is not one registered for ${client.id}`, { knownClient: known });
    } else {
      throw invalidClient(`client ${client.id} does not authenticate with a certificate`, { knownClient: known });
    }
    return this.admitted(client, deadline);
  }

  private async admitted(client: ClientRecord, deadline: DatabaseDeadline | undefined): Promise<ClientRecord> {
    const known = { id: client.id, platform: client.platform, institution: client.institution };
    if (!client.enabled) throw invalidClient(`client ${client.id} is disabled`, { knownClient: known });
    if (this.institutions && !(await this.institutions.isEnabled(client.institution, deadline))) {
      throw invalidClient(`institution ${client.institution} of client ${client.id} is disabled`, {
        knownClient: known,
      });
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
