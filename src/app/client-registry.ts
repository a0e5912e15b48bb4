/**
 * The operator's management of platform clients (CLI `clients …`). Secrets are
 * generated here, shown once to the caller and stored only as digests.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_SCOPE, isClientGrant, isKnownScope, KNOWN_SCOPES, type Client, type ClientGrant, type ClientRecord, type Scope } from '../domain/client.js';
import { BadRequest, NotFound, type FieldProblem } from '../domain/errors.js';
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
}

export interface ClientWithSecret {
  readonly client: Client;
  /** The plain secret: returned once, never stored. */
  readonly secret: string;
}

/** Platform names end up in keys and logs: a conservative alphabet. */
const PLATFORM_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

function withoutDigest({ secretDigest: _omitted, ...client }: ClientRecord): Client {
  return client;
}

export class ClientRegistry {
  constructor(
    private readonly store: ClientStore,
    private readonly hasher: CredentialHasher,
    private readonly clock: Clock,
    /** Checks that a new client's institution exists; without it only `default` is accepted. */
    private readonly institutions?: Pick<InstitutionStore, 'find'>,
  ) {}

  async create(input: CreateClientInput): Promise<ClientWithSecret> {
    const problems: FieldProblem[] = [];
    const name = input.name.trim();
    if (name.length === 0 || name.length > 200) problems.push({ path: 'name', message: 'must be 1 to 200 characters' });
    if (input.platform !== undefined && !PLATFORM_PATTERN.test(input.platform)) {
      problems.push({ path: 'platform', message: 'must be 1 to 64 letters, digits or . _ : - and start with a letter or digit' });
    }
    const scopes = [...new Set(input.scopes?.length ? input.scopes : [DEFAULT_SCOPE])];
    for (const scope of scopes) {
      if (!isKnownScope(scope)) problems.push({ path: 'scope', message: `unknown scope "${scope}" (known: ${KNOWN_SCOPES.join(', ')})` });
    }
    const grants = new Set<ClientGrant>(['client_credentials']);
    for (const grant of input.grants ?? []) {
      if (isClientGrant(grant)) grants.add(grant);
      else problems.push({ path: 'grant', message: `unknown grant "${grant}" (known: client_credentials, refresh_token)` });
    }
    const allowedIps: string[] = [];
    for (const text of input.allowedIps ?? []) {
      const parsed = parseCidr(text);
      if (parsed.ok) allowedIps.push(parsed.cidr);
      else problems.push({ path: 'allow-ip', message: parsed.reason });
    }
    const institution = input.institution ?? DEFAULT_INSTITUTION;
    const known = this.institutions ? (await this.institutions.find(institution)) !== undefined : institution === DEFAULT_INSTITUTION;
    if (!known) problems.push({ path: 'institution', message: `no institution "${institution}" (see \`coregate institutions list\`)` });
    if (problems.length > 0) throw new BadRequest('invalid client', problems);

    const id = `cg_${randomBytes(15).toString('base64url')}`;
    const secret = this.hasher.generate(CLIENT_SECRET_PREFIX);
    const record = await this.store.create({
      id,
      name,
      // Without a platform the client is its own platform (CONTRACT §1).
      platform: input.platform ?? id,
      institution,
      scopes: scopes as Scope[],
      grants: [...grants],
      allowedIps: [...new Set(allowedIps)],
      secretDigest: this.hasher.digest(secret),
      createdAt: this.clock.now(),
    });
    return { client: withoutDigest(record), secret };
  }

  async list(): Promise<Client[]> {
    return (await this.store.list()).map(withoutDigest);
  }

  async show(id: string): Promise<Client> {
    return withoutDigest(this.found(id, await this.store.findById(id)));
  }

  async setEnabled(id: string, enabled: boolean): Promise<Client> {
    return withoutDigest(this.found(id, await this.store.setEnabled(id, enabled, this.clock.now())));
  }

  /** Replaces the secret at once: the old one stops working for new tokens immediately. */
  async rotateSecret(id: string): Promise<ClientWithSecret> {
    const secret = this.hasher.generate(CLIENT_SECRET_PREFIX);
    const record = this.found(id, await this.store.replaceSecret(id, this.hasher.digest(secret), this.clock.now()));
    return { client: withoutDigest(record), secret };
  }

  private found(id: string, record: ClientRecord | undefined): ClientRecord {
    if (!record) throw new NotFound(`no client "${id}"`);
    return record;
  }
}
