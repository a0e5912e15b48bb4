/**
 * The client-security flags of `clients create` and `clients update` (one authentication
 * method per client, RFC 8414 `token_endpoint_auth_method`): added to a command, and turned
 * into the arguments of the admin operation. The JWK Set is read from its file here — a JWK Set,
 * a PEM public key or a PEM certificate; a PEM private key is refused with the command that
 * extracts its public key. The registry refuses a JWK Set holding a private key (only public
 * keys are ever stored).
 */
import { createPublicKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { UsageError } from './io.js';

export interface ClientSecurityOptions {
  authMethod?: string;
  jwksFile?: string;
  tlsSubjectDn?: string;
  requireBoundTokens?: boolean;
}

export interface ClientSecurityArgs {
  authMethod?: string;
  jwks?: unknown;
  tlsSubjectDn?: string;
  requireBoundTokens?: boolean;
}

/** `update`: `--no-require-bound-tokens` turns the rule off again. */
export function addClientSecurityOptions(command: Command, forUpdate = false): Command {
  command
    .option(
      '--auth-method <M>',
      'client_secret_basic (default), private_key_jwt, tls_client_auth or self_signed_tls_client_auth',
    )
    .option(
      '--jwks-file <FILE>',
      'its public keys (private_key_jwt): a JWK Set or a PEM public key; or its certificate (self_signed_tls_client_auth): a JWK Set with x5c, or a PEM certificate',
    )
    .option('--tls-subject-dn <DN>', 'the subject DN of its client certificate (tls_client_auth)')
    .option('--require-bound-tokens', 'issue it only DPoP- or certificate-bound tokens');
  if (forUpdate) command.option('--no-require-bound-tokens', 'issue it bearer tokens again');
  return command;
}

export async function clientSecurityArgs(options: ClientSecurityOptions): Promise<ClientSecurityArgs> {
  return {
    ...(options.authMethod !== undefined ? { authMethod: options.authMethod } : {}),
    ...(options.jwksFile !== undefined ? { jwks: await readJwksFile(options.jwksFile) } : {}),
    ...(options.tlsSubjectDn !== undefined ? { tlsSubjectDn: options.tlsSubjectDn } : {}),
    ...(options.requireBoundTokens !== undefined ? { requireBoundTokens: options.requireBoundTokens } : {}),
  };
}

async function readJwksFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--jwks-file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (text.includes('-----BEGIN CERTIFICATE-----')) return certificateJwks(path, text);
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text))
    throw new UsageError(
      `--jwks-file: ${path} is a private key, which must stay with the client: register its public key, extracted with: openssl pkey -in ${path} -pubout -out public.pem`,
    );
  if (/-----BEGIN [A-Z ]*PUBLIC KEY-----/.test(text)) return publicKeyJwks(path, text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(
      `--jwks-file: ${path} is not JSON (a JWK Set: {"keys": [...]}), a PEM public key nor a PEM certificate`,
    );
  }
}

/**
 * A PEM public key (SPKI, `openssl pkey -pubout`) as a JWK Set of one key, its `kid` the key's
 * RFC 7638 thumbprint. `alg` names the one algorithm the token endpoint verifies for the key
 * type (ES256 for P-256, PS256 for RSA); an Ed25519 key is left without `alg`, so that an
 * assertion signed under either of its names (`EdDSA`, RFC 9864's `Ed25519`) finds it.
 */
async function publicKeyJwks(path: string, pem: string): Promise<unknown> {
  let jwk: JWK;
  try {
    jwk = createPublicKey(pem).export({ format: 'jwk' });
  } catch {
    throw new UsageError(`--jwks-file: ${path} holds a public key that cannot be read`);
  }
  const alg =
    jwk.kty === 'RSA'
      ? 'PS256'
      : jwk.kty === 'EC' && jwk.crv === 'P-256'
        ? 'ES256'
        : jwk.crv === 'Ed25519'
          ? null
          : undefined;
  if (alg === undefined)
    throw new UsageError(
      `--jwks-file: ${path} holds a ${jwk.kty === 'EC' ? `${jwk.crv ?? 'EC'} ` : ''}${jwk.kty ?? ''} key: use an Ed25519, P-256 or RSA key`,
    );
  return { keys: [{ ...jwk, kid: await calculateJwkThumbprint(jwk), use: 'sig', ...(alg ? { alg } : {}) }] };
}

/** A PEM certificate as the JWK Set RFC 8705 §2.2 registers: its public key, the certificate in `x5c`. */
function certificateJwks(path: string, pem: string): unknown {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  try {
    return {
      keys: blocks.map((block) => {
        const certificate = new X509Certificate(block);
        return { ...certificate.publicKey.export({ format: 'jwk' }), x5c: [certificate.raw.toString('base64')] };
      }),
    };
  } catch {
    throw new UsageError(`--jwks-file: ${path} holds a certificate that cannot be read`);
  }
}

/** What `--json` and the text output add about the client's authentication. */
export function clientSecurityJson(client: {
  authMethod: string;
  requireBoundTokens: boolean;
  tlsSubjectDn: string | null;
  jwksKids: readonly string[] | null;
}) {
  return {
    token_endpoint_auth_method: client.authMethod,
    require_bound_tokens: client.requireBoundTokens,
    ...(client.tlsSubjectDn !== null ? { tls_subject_dn: client.tlsSubjectDn } : {}),
    ...(client.jwksKids !== null ? { jwks_kids: client.jwksKids } : {}),
  };
}
