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

/** The text of a certificate header: URL-encoded PEM is decoded; base64 DER is left as it is. */
function headerText(value: string): string {
  return value.includes('%') ? decodeURIComponent(value) : value;
}

/**
 * The DER length a certificate's outer SEQUENCE announces (X.690 §8.1.3), header included, or
 * `undefined` when `der` does not start like a certificate.
 */
function derLength(der: Buffer): number | undefined {
  if (der.length < 2 || der[0] !== 0x30) return undefined;
  const first = der[1]!;
  if (first < 0x80) return 2 + first;
  const octets = first & 0x7f;
  if (octets === 0 || octets > 4 || der.length < 2 + octets) return undefined;
  let length = 0;
  for (let i = 0; i < octets; i += 1) length = length * 256 + der[2 + i]!;
  return 2 + octets + length;
}

/**
 * Whether one line of the certificate header carries more than one certificate: a proxy that
 * folds repeated header lines into one (`A,B`, RFC 9110 §5.3), or two PEM blocks (or two DER
 * certificates) run together. Such a line is as ambiguous as two lines — whichever certificate
 * were read first would win — so it is refused the same way (`plugins/single-authorization.ts`).
 * None of the header's forms (URL-encoded PEM, base64 DER) ever holds a comma.
 */
export function holdsSeveralCertificates(value: string): boolean {
  if (value.includes(',')) return true;
  let text: string;
  try {
    text = headerText(value);
  } catch {
    return false; // Not URL-encoded after all: read as no certificate, like any unreadable value.
  }
  if (text.includes('-----BEGIN')) return text.split('-----BEGIN').length > 2;
  const der = Buffer.from(text, 'base64');
  const announced = derLength(der);
  return announced !== undefined && announced < der.length;
}

function fromHeader(value: string): X509Certificate | undefined {
  try {
    const text = headerText(value);
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
