/**
 * The operator's management of platform clients (CLI `clients …`). Secrets are
 * generated here, shown once to the caller and stored only as digests.
 */
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_SCOPE,
  isClientGrant,
  isKnownScope,
  isTokenEndpointAuthMethod,
  KNOWN_SCOPES,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type Client,
  type ClientChanges,
  type ClientGrant,
  type ClientJwks,
  type ClientRecord,
  type Scope,
  type TokenEndpointAuthMethod,
} from '../domain/client.js';
import { clientJwksProblem, publicJwks } from '../domain/client-keys.js';
import { invalidRequest, notFound, type FieldProblem } from '../domain/errors.js';
import { parseCidr } from '../domain/ip-allow-list.js';
import type { ClientStore } from '../ports/client-store.js';
import type { Clock } from '../ports/clock.js';
import type { CredentialHasher } from '../ports/credential-hasher.js';
import { DEFAULT_INSTITUTION } from '../domain/institution.js';
import type { InstitutionStore } from '../ports/institution-store.js';

export const CLIENT_SECRET_PREFIX = 'cgs_';

export interface CreateClientInput {
  readonly name: string;
  readonly platform?: string | undefined;
  readonly scopes?: readonly string[] | undefined;
  readonly grants?: readonly string[] | undefined;
  readonly allowedIps?: readonly string[] | undefined;
  /** The institution the client acts for; `default` when absent. Must exist. */
  readonly institution?: string | undefined;
  /** `client_secret_basic` when absent. */
  readonly authMethod?: string | undefined;
  /** Its public keys (`private_key_jwt`) or its certificate (`self_signed_tls_client_auth`). */
  readonly jwks?: unknown;
  /** Its certificate's subject DN (`tls_client_auth`). */
  readonly tlsSubjectDn?: string | undefined;
  readonly requireBoundTokens?: boolean | undefined;
}

export interface ClientWithSecret {
  readonly client: Client;
  /** The plain secret: returned once, never stored. */
  readonly secret: string;
}

/** A client that authenticates with a key or a certificate has no secret. */
export interface CreatedClient {
  readonly client: Client;
  readonly secret: string | undefined;
}

/** The credentials of an authentication method, checked: what the store keeps. */
interface MethodCredentials {
  readonly authMethod: TokenEndpointAuthMethod;
  readonly jwks: ClientJwks | null;
  readonly tlsSubjectDn: string | null;
}

/**
 * Checks the credentials a method needs and refuses those it does not use: a JWKS for
 * `private_key_jwt` and `self_signed_tls_client_auth`, a subject DN for `tls_client_auth`.
 */
function methodCredentials(
  method: string | undefined,
  jwks: unknown,
  tlsSubjectDn: string | undefined,
  problems: FieldProblem[],
): MethodCredentials {
  const authMethod = method ?? 'client_secret_basic';
  if (!isTokenEndpointAuthMethod(authMethod)) {
    problems.push({
      path: 'auth-method',
      message: `unknown method "${authMethod}" (known: ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')})`,
    });
    return { authMethod: 'client_secret_basic', jwks: null, tlsSubjectDn: null };
  }
  const needsJwks = authMethod === 'private_key_jwt' || authMethod === 'self_signed_tls_client_auth';
  let checkedJwks: ClientJwks | null = null;
  if (needsJwks && jwks === undefined)
    problems.push({ path: 'jwks-file', message: `is required with --auth-method ${authMethod}` });
  else if (!needsJwks && jwks !== undefined)
    problems.push({
      path: 'jwks-file',
      message: `is only for private_key_jwt and self_signed_tls_client_auth, not ${authMethod}`,
    });
  else if (needsJwks) {
    const problem = clientJwksProblem(jwks, authMethod);
    if (problem) problems.push({ path: 'jwks-file', message: problem });
    else checkedJwks = publicJwks(jwks as ClientJwks);
  }
  const subject = tlsSubjectDn?.trim();
  if (authMethod === 'tls_client_auth' && !subject)
    problems.push({ path: 'tls-subject-dn', message: 'is required with --auth-method tls_client_auth' });
  if (authMethod !== 'tls_client_auth' && tlsSubjectDn !== undefined)
    problems.push({ path: 'tls-subject-dn', message: 'is only for tls_client_auth' });
  return { authMethod, jwks: checkedJwks, tlsSubjectDn: authMethod === 'tls_client_auth' && subject ? subject : null };
}

/** Platform names end up in keys and logs: a conservative alphabet. */
const PLATFORM_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

function withoutDigest({
  secretDigest: _omitted,
  previousSecretDigest: _previous,
  previousSecretUntil: _until,
  ...client
}: ClientRecord): Client {
  return client;
}

/** `clients update`: each field given replaces the stored one. */
export interface UpdateClientInput {
  readonly name?: string | undefined;
  readonly scopes?: readonly string[] | undefined;
  readonly grants?: readonly string[] | undefined;
  readonly allowedIps?: readonly string[] | undefined;
  readonly clearAllowedIps?: boolean | undefined;
  /** A new method with its credentials (as for create); without it, `jwks` replaces the key set of the current method. */
  readonly authMethod?: string | undefined;
  readonly jwks?: unknown;
  readonly tlsSubjectDn?: string | undefined;
  readonly requireBoundTokens?: boolean | undefined;
}

/** The longest grace period of a rotated secret: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 24 * 3600;

export class ClientRegistry {
  constructor(
    private readonly store: ClientStore,
    private readonly hasher: CredentialHasher,
    private readonly clock: Clock,
    /** Checks that a new client's institution exists; without it only `default` is accepted. */
    private readonly institutions?: Pick<InstitutionStore, 'find'>,
    /**
     * Told of every client written, once it is stored: this process drops its cached copy at
     * once (read-your-writes), without waiting for the change feed to announce it.
     */
    private readonly onChange?: (clientId: string) => void,
  ) {}

  /** A client authenticating with a secret (the default) gets one, shown here once; others get none. */
  async create(
    input: CreateClientInput & { readonly authMethod?: 'client_secret_basic' | undefined },
  ): Promise<ClientWithSecret>;
  async create(input: CreateClientInput): Promise<CreatedClient>;
  async create(input: CreateClientInput): Promise<CreatedClient> {
    const problems: FieldProblem[] = [];
    const credentials = methodCredentials(input.authMethod, input.jwks, input.tlsSubjectDn, problems);
    const name = input.name.trim();
    if (name.length === 0 || name.length > 200) problems.push({ path: 'name', message: 'must be 1 to 200 characters' });
    if (input.platform !== undefined && !PLATFORM_PATTERN.test(input.platform)) {
      problems.push({
        path: 'platform',
        message: 'must be 1 to 64 letters, digits or . _ : - and start with a letter or digit',
      });
    }
    const scopes = [...new Set(input.scopes?.length ? input.scopes : [DEFAULT_SCOPE])];
    for (const scope of scopes) {
      if (!isKnownScope(scope))
        problems.push({ path: 'scope', message: `unknown scope "${scope}" (known: ${KNOWN_SCOPES.join(', ')})` });
    }
    const grants = new Set<ClientGrant>(['client_credentials']);
    for (const grant of input.grants ?? []) {
      if (isClientGrant(grant)) grants.add(grant);
      else
        problems.push({
          path: 'grant',
          message: `unknown grant "${grant}" (known: client_credentials, refresh_token)`,
        });
    }
    const allowedIps: string[] = [];
    for (const text of input.allowedIps ?? []) {
      const parsed = parseCidr(text);
      if (parsed.ok) allowedIps.push(parsed.cidr);
      else problems.push({ path: 'allow-ip', message: parsed.reason });
    }
    const institution = input.institution ?? DEFAULT_INSTITUTION;
    const known = this.institutions
      ? (await this.institutions.find(institution)) !== undefined
      : institution === DEFAULT_INSTITUTION;
    if (!known)
      problems.push({
        path: 'institution',
        message: `no institution "${institution}" (see \`coregate institutions list\`)`,
      });
    if (problems.length > 0) throw invalidRequest('invalid client', { problems });

    const id = `cg_${randomBytes(15).toString('base64url')}`;
    const secret =
      credentials.authMethod === 'client_secret_basic' ? this.hasher.generate(CLIENT_SECRET_PREFIX) : undefined;
    const record = await this.store.create({
      id,
      name,
      // Without a platform the client is its own platform (docs/behaviour.md#cli-commands).
      platform: input.platform ?? id,
      institution,
      scopes: scopes as Scope[],
      grants: [...grants],
      allowedIps: [...new Set(allowedIps)],
      secretDigest: secret === undefined ? null : this.hasher.digest(secret),
      createdAt: this.clock.now(),
      ...credentials,
      requireBoundTokens: input.requireBoundTokens === true,
    });
    this.onChange?.(id);
    return { client: withoutDigest(record), secret };
  }

  /** Every client, or one platform's. */
  async list(platform?: string): Promise<Client[]> {
    const all = (await this.store.list()).map(withoutDigest);
    return platform === undefined ? all : all.filter((client) => client.platform === platform);
  }

  /**
   * `clients update`: the fields given replace the stored ones (the allow-list as a whole;
   * `clearAllowedIps` empties it). Gateways see the change as soon as the change feed
   * announces it, or within their client cache time while it is down.
   */
  async update(id: string, input: UpdateClientInput): Promise<Client> {
    const problems: FieldProblem[] = [];
    const changes: { -readonly [K in keyof ClientChanges]: ClientChanges[K] } = {};
    if (input.authMethod !== undefined) {
      Object.assign(changes, methodCredentials(input.authMethod, input.jwks, input.tlsSubjectDn, problems));
    } else if (input.jwks !== undefined || input.tlsSubjectDn !== undefined) {
      // New keys (a key rotation) for the method the client has.
      const current = this.found(id, await this.store.findById(id));
      const checked = methodCredentials(
        current.authMethod,
        input.jwks ?? current.jwks ?? undefined,
        input.tlsSubjectDn ?? current.tlsSubjectDn ?? undefined,
        problems,
      );
      if (input.jwks !== undefined) changes.jwks = checked.jwks;
      if (input.tlsSubjectDn !== undefined) changes.tlsSubjectDn = checked.tlsSubjectDn;
    }
    if (input.requireBoundTokens !== undefined) changes.requireBoundTokens = input.requireBoundTokens;
    if (input.name !== undefined) {
      const name = input.name.trim();
      if (name.length === 0 || name.length > 200)
        problems.push({ path: 'name', message: 'must be 1 to 200 characters' });
      changes.name = name;
    }
    if (input.scopes !== undefined && input.scopes.length > 0) {
      for (const scope of input.scopes) {
        if (!isKnownScope(scope))
          problems.push({ path: 'scope', message: `unknown scope "${scope}" (known: ${KNOWN_SCOPES.join(', ')})` });
      }
      changes.scopes = [...new Set(input.scopes)] as Scope[];
    }
    if (input.grants !== undefined && input.grants.length > 0) {
      const grants = new Set<ClientGrant>(['client_credentials']);
      for (const grant of input.grants) {
        if (isClientGrant(grant)) grants.add(grant);
        else
          problems.push({
            path: 'grant',
            message: `unknown grant "${grant}" (known: client_credentials, refresh_token)`,
          });
      }
      changes.grants = [...grants];
    }
    if (input.clearAllowedIps && input.allowedIps?.length)
      problems.push({ path: 'clear-allow-ips', message: 'cannot be combined with --allow-ip' });
    if (input.clearAllowedIps) changes.allowedIps = [];
    else if (input.allowedIps !== undefined && input.allowedIps.length > 0) {
      const allowedIps: string[] = [];
      for (const text of input.allowedIps) {
        const parsed = parseCidr(text);
        if (parsed.ok) allowedIps.push(parsed.cidr);
        else problems.push({ path: 'allow-ip', message: parsed.reason });
      }
      changes.allowedIps = [...new Set(allowedIps)];
    }
    if (problems.length > 0) throw invalidRequest('invalid client', { problems });
    if (Object.keys(changes).length === 0)
      throw invalidRequest('nothing to change', {
        problems: [
          {
            path: 'name',
            message:
              'give at least one of --name, --scope, --grant, --allow-ip, --clear-allow-ips, --auth-method, --jwks-file, --tls-subject-dn, --require-bound-tokens',
          },
        ],
      });
    return withoutDigest(this.changed(id, await this.store.update(id, changes, this.clock.now())));
  }

  /** `clients delete`: its refresh tokens go with it; its access tokens stop at the gateways as for a disabled client. */
  async delete(id: string): Promise<Client> {
    const client = await this.show(id);
    if (!(await this.store.delete(id))) throw notFound(`no client "${id}"`);
    this.onChange?.(id);
    return client;
  }

  async show(id: string): Promise<Client> {
    return withoutDigest(this.found(id, await this.store.findById(id)));
  }

  async setEnabled(id: string, enabled: boolean): Promise<Client> {
    return withoutDigest(this.changed(id, await this.store.setEnabled(id, enabled, this.clock.now())));
  }

  /**
   * Replaces the secret. Without a grace period the old one stops working at once; with
   * `graceSeconds` it keeps working that long, so running instances can be redeployed one by one.
   */
  async rotateSecret(id: string, graceSeconds = 0): Promise<ClientWithSecret & { previousSecretUntil: Date | null }> {
    if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_GRACE_SECONDS) {
      throw invalidRequest('invalid grace period', {
        problems: [{ path: 'grace', message: `must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}` }],
      });
    }
    const current = this.found(id, await this.store.findById(id));
    // A client moved back to client_secret_basic has no secret yet: this makes its first one.
    if (current.authMethod !== 'client_secret_basic') {
      throw invalidRequest('this client has no secret', {
        problems: [
          {
            path: 'id',
            message: `authenticates with ${current.authMethod}: rotate its keys with \`clients update --jwks-file\``,
          },
        ],
      });
    }
    const now = this.clock.now();
    const previous =
      graceSeconds > 0 && current.secretDigest !== null
        ? { digest: current.secretDigest, until: new Date(now.getTime() + graceSeconds * 1000) }
        : undefined;
    const secret = this.hasher.generate(CLIENT_SECRET_PREFIX);
    const record = this.changed(id, await this.store.replaceSecret(id, this.hasher.digest(secret), now, previous));
    return { client: withoutDigest(record), secret, previousSecretUntil: previous?.until ?? null };
  }

  private found(id: string, record: ClientRecord | undefined): ClientRecord {
    if (!record) throw notFound(`no client "${id}"`);
    return record;
  }

  /** A write's result: this process forgets its cached copy of the client. */
  private changed(id: string, record: ClientRecord | undefined): ClientRecord {
    this.onChange?.(id);
    return this.found(id, record);
  }
}
