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

/**
 * How a client authenticates at the token and revocation endpoints (RFC 8414
 * `token_endpoint_auth_method`): one method per client.
 */
export const TOKEN_ENDPOINT_AUTH_METHODS = [
  'client_secret_basic',
  'private_key_jwt',
  'tls_client_auth',
  'self_signed_tls_client_auth',
] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

export function isTokenEndpointAuthMethod(value: string): value is TokenEndpointAuthMethod {
  return (TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(value);
}

/** A JWK Set (RFC 7517 §5) holding public keys only. */
export interface ClientJwks {
  readonly keys: ReadonlyArray<Readonly<Record<string, unknown>>>;
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
  readonly authMethod: TokenEndpointAuthMethod;
  /** Public keys (`private_key_jwt`) or the certificate (`self_signed_tls_client_auth`, in `x5c`); `null` for the other methods. */
  readonly jwks: ClientJwks | null;
  /** The certificate subject a `tls_client_auth` client presents (RFC 8705 §2.1.2); `null` otherwise. */
  readonly tlsSubjectDn: string | null;
  /** Only sender-constrained tokens (DPoP or certificate-bound) are issued to it. */
  readonly requireBoundTokens: boolean;
}

/** A client as stored, with the digest of its secret (never the secret itself). */
export interface ClientRecord extends Client {
  /** `null` for a client that authenticates with a key or a certificate: it has no secret. */
  readonly secretDigest: string | null;
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
  /** A new method replaces the old credentials: moving away from `client_secret_basic` drops the secret. */
  readonly authMethod?: TokenEndpointAuthMethod;
  readonly jwks?: ClientJwks | null;
  readonly tlsSubjectDn?: string | null;
  readonly requireBoundTokens?: boolean;
}

/**
 * What a client id may look like where one arrives from outside (a token's claims):
 * coregate issues `cg_` + 20 base64url characters; anything with controls, spaces or
 * over 128 characters is not one of ours.
 */
export function isWellFormedClientId(id: string): boolean {
  return /^[A-Za-z0-9_.-]{1,128}$/.test(id);
}
