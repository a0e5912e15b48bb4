/**
 * The client-security flags of `clients create` and `clients update` (one authentication
 * method per client, RFC 8414 `token_endpoint_auth_method`): added to a command, and turned
 * into the arguments of the admin operation. The JWK Set is read from its file here; the
 * registry refuses one holding a private key (only public keys are ever stored).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
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
      'its public keys as a JWK Set (private_key_jwt), or its certificate (self_signed_tls_client_auth): a JWK Set with x5c, or a PEM certificate',
    )
    .option('--tls-subject-dn <DN>', 'the subject DN of its client certificate (tls_client_auth)')
    .option('--require-bound-tokens', 'issue it only DPoP- or certificate-bound tokens');
  if (forUpdate) command.option('--no-require-bound-tokens', 'issue it bearer tokens again');
  return command;
}

export function clientSecurityArgs(options: ClientSecurityOptions): ClientSecurityArgs {
  return {
    ...(options.authMethod !== undefined ? { authMethod: options.authMethod } : {}),
    ...(options.jwksFile !== undefined ? { jwks: readJwksFile(options.jwksFile) } : {}),
    ...(options.tlsSubjectDn !== undefined ? { tlsSubjectDn: options.tlsSubjectDn } : {}),
    ...(options.requireBoundTokens !== undefined ? { requireBoundTokens: options.requireBoundTokens } : {}),
  };
}

function readJwksFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--jwks-file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (text.includes('-----BEGIN CERTIFICATE-----')) return certificateJwks(path, text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`--jwks-file: ${path} is not JSON (a JWK Set: {"keys": [...]}) nor a PEM certificate`);
  }
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
