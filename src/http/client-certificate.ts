/**
 * The client certificate of a request (RFC 8705): from coregate's own TLS handshake, or from
 * the header a TLS-terminating proxy fills — believed only when the request came straight
 * from a trusted proxy (COREGATE_TRUST_PROXY), since anyone else could write that header.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import type { PresentedCertificate } from '../app/authenticate-client.js';
import { IpAllowList } from '../domain/ip-allow-list.js';

/** `isTrustedProxy` from COREGATE_TRUST_PROXY: `true` trusts the immediate peer, a list those addresses. */
export function trustedProxies(trustProxy: boolean | readonly string[]): (address: string) => boolean {
  if (typeof trustProxy === 'boolean') return () => trustProxy;
  const list = new IpAllowList(trustProxy);
  return (address) => list.allows(address);
}

export interface ClientCertificateSource {
  /** Header (lower case) a trusted proxy passes the certificate in: URL-encoded PEM, or base64 DER. */
  readonly header?: string;
  /** Whether the immediate peer is a trusted proxy (COREGATE_TRUST_PROXY), whose header is believed. */
  readonly isTrustedProxy: (address: string) => boolean;
  /** CA certificates a certificate from the proxy must chain to for `tls_client_auth`; without them the proxy's own check counts. */
  readonly ca?: () => readonly X509Certificate[] | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The client certificate, once read ({@link presentedCertificate}); null when none. */
    clientCertificate: PresentedCertificate | null | undefined;
  }
}

function thumbprint(certificate: X509Certificate): string {
  return createHash('sha256').update(certificate.raw).digest('base64url');
}

function described(certificate: X509Certificate, chainVerified: boolean): PresentedCertificate {
  return { subjectDn: certificate.subject, thumbprint: thumbprint(certificate), chainVerified };
}

function fromHeader(value: string): X509Certificate | undefined {
  try {
    const text = value.includes('%') ? decodeURIComponent(value) : value;
    return new X509Certificate(text.includes('-----BEGIN') ? text : Buffer.from(text, 'base64'));
  } catch {
    return undefined;
  }
}

function issuedByOneOf(certificate: X509Certificate, cas: readonly X509Certificate[], now: Date): boolean {
  if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) return false;
  return cas.some((ca) => certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
}

/** Reads (once per request) the certificate the caller presented; `undefined` when none. */
export function presentedCertificate(
  request: FastifyRequest,
  source: ClientCertificateSource | undefined,
  now: Date,
): PresentedCertificate | undefined {
  if (request.clientCertificate !== undefined) return request.clientCertificate ?? undefined;
  let found: PresentedCertificate | undefined;
  const socket = request.raw.socket as Partial<TLSSocket>;
  const peer = socket.encrypted ? socket.getPeerX509Certificate?.() : undefined;
  if (peer) found = described(peer, socket.authorized === true);
  else if (source?.header !== undefined) {
    const value = request.headers[source.header];
    const trusted = source.isTrustedProxy(request.socket.remoteAddress ?? '');
    const certificate = typeof value === 'string' && value !== '' && trusted ? fromHeader(value) : undefined;
    const cas = source.ca?.();
    if (certificate) found = described(certificate, cas ? issuedByOneOf(certificate, cas, now) : true);
  }
  request.clientCertificate = found ?? null;
  return found;
}
