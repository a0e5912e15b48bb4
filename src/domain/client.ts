/** Registered platform clients of the authorization server. */

/** Scopes coregate knows. A token carries exactly one (docs/behaviour.md#grants-and-scopes). */
export const KNOWN_SCOPES = ['core/main'] as const;
export type Scope = (typeof KNOWN_SCOPES)[number];
export const DEFAULT_SCOPE: Scope = 'core/main';

export function isKnownScope(value: string): value is Scope {
  return (KNOWN_SCOPES as readonly string[]).includes(value);
}

/** Grants a client may hold; `client_credentials` is always granted (docs/behaviour.md#cli-commands). */
const CLIENT_GRANTS = ['client_credentials', 'refresh_token'] as const;
export type ClientGrant = (typeof CLIENT_GRANTS)[number];

export function isClientGrant(value: string): value is ClientGrant {
  return (CLIENT_GRANTS as readonly string[]).includes(value);
}

export interface Client {
  readonly id: string;
  readonly name: string;
  /** The tenant whose customers this client may reach. */
  readonly platform: string;
  /** The institution (bank) the client acts for; its tokens carry it as the claim `institution` (docs/behaviour.md#institution-isolation). */
  readonly institution: string;
  readonly scopes: readonly Scope[];
  readonly grants: readonly ClientGrant[];
  /** CIDR blocks the client may call from; empty means anywhere. */
  readonly allowedIps: readonly string[];
  readonly enabled: boolean;
  readonly createdAt: Date;
  /** When the current secret was set (equal to `createdAt` until the first rotation). */
  readonly secretRotatedAt: Date;
  readonly updatedAt: Date;
}

/** A client as stored, with the digest of its secret (never the secret itself). */
export interface ClientRecord extends Client {
  readonly secretDigest: string;
  /** After `rotate-secret --grace`: the previous secret's digest, accepted until `previousSecretUntil`. */
  readonly previousSecretDigest?: string | null;
  readonly previousSecretUntil?: Date | null;
}

/** What `clients update` may change; an absent field stays as it is. */
export interface ClientChanges {
  readonly name?: string;
  readonly scopes?: readonly Scope[];
  readonly grants?: readonly ClientGrant[];
  readonly allowedIps?: readonly string[];
}

/**
 * What a client id may look like where one arrives from outside (a token's claims):
 * coregate issues `cg_` + 20 base64url characters; anything with controls, spaces or
 * over 128 characters is not one of ours.
 */
export function isWellFormedClientId(id: string): boolean {
  return /^[A-Za-z0-9_.-]{1,128}$/.test(id);
}
