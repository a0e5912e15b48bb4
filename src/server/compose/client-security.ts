/**
 * What clients prove themselves and their tokens with, beyond a shared secret
 * (docs/client-security.md): single-use proof ids, client assertions (RFC 7523), DPoP
 * proofs (RFC 9449), client certificates (RFC 8705), and what the metadata says of them.
 */
import { X509Certificate } from 'node:crypto';
import type { ClientAssertionCheck } from '../../app/authenticate-client.js';
import { DpopProofs } from '../../app/dpop-proofs.js';
import {
  CLIENT_ASSERTION_ALGORITHMS,
  JoseClientAssertionVerifier,
} from '../../adapters/crypto/jose-client-assertion.js';
import { JoseDpopProofVerifier } from '../../adapters/crypto/jose-dpop-proof.js';
import { createReplayGuard } from '../../adapters/replay/create-replay-guard.js';
import { readClientCa } from '../../adapters/tls/read-tls-credentials.js';
import type { Config } from '../../config/config.js';
import { trustedProxies, type ClientCertificateSource } from '../../http/client-certificate.js';
import type { ReplayGuard } from '../../ports/replay-guard.js';
import type { IssuerUrl } from '../issuer-url.js';
import type { Basics } from './basics.js';

/** Client authentication methods enabled and the algorithms of client proofs, for the metadata. */
export interface ClientSecurityMetadata {
  readonly authMethods: readonly string[];
  readonly authSigningAlgorithms: readonly string[];
  readonly dpopSigningAlgorithms: readonly string[];
  readonly tlsCertificateBoundTokens: boolean;
}

export interface ClientSecurity {
  /** Single use of client assertions' and DPoP proofs' `jti`, in every process. */
  readonly replayGuard: ReplayGuard;
  readonly assertionCheck: ClientAssertionCheck;
  readonly dpopProofs: DpopProofs;
  /** `undefined` when mutual TLS is not configured. */
  readonly clientCertificates: ClientCertificateSource | undefined;
  readonly metadata: ClientSecurityMetadata;
}

export function buildClientSecurity(
  { config, clock, database, logger }: Basics,
  { issuer }: { readonly issuer: IssuerUrl },
): ClientSecurity {
  const replayGuard = createReplayGuard(config, database, logger, clock);
  const dpopProofs = new DpopProofs(new JoseDpopProofVerifier(clock), replayGuard);
  const clientCertificates = mutualTls(config);
  return {
    replayGuard,
    assertionCheck: {
      verifier: new JoseClientAssertionVerifier(),
      replays: replayGuard,
      // RFC 7523 §3: the issuer, or the token endpoint's URL (RFC 7523 and FAPI 2.0 differ on which).
      audiences: () => [issuer.get(), `${issuer.get()}/oauth2/token`],
    },
    dpopProofs,
    clientCertificates,
    metadata: {
      authMethods: [
        'client_secret_basic',
        'private_key_jwt',
        ...(clientCertificates ? ['tls_client_auth', 'self_signed_tls_client_auth'] : []),
      ],
      authSigningAlgorithms: CLIENT_ASSERTION_ALGORITHMS,
      dpopSigningAlgorithms: dpopProofs.algorithms,
      tlsCertificateBoundTokens: clientCertificates !== undefined,
    },
  };
}
/**
 * Mutual TLS as configured: certificates from coregate's own TLS (COREGATE_TLS_CLIENT_CA_FILE)
 * and/or from a trusted proxy's header (COREGATE_TLS_CLIENT_CERT_HEADER), checked against that CA.
 */
function mutualTls(config: Config): ClientCertificateSource | undefined {
  if (config.tlsClientCaFile === undefined && config.tlsClientCertHeader === undefined) return undefined;
  // Read on first use: a CLI command never reads the CA file (the server checks it at start: startServer).
  let ca: readonly X509Certificate[] | undefined;
  const caCertificates = (): readonly X509Certificate[] | undefined => {
    if (config.tlsClientCaFile === undefined || ca) return ca;
    const bundle = readClientCa(config)?.toString('utf8') ?? '';
    ca = (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
      (pem) => new X509Certificate(pem),
    );
    return ca;
  };
  return {
    ...(config.tlsClientCertHeader !== undefined ? { header: config.tlsClientCertHeader } : {}),
    isTrustedProxy: trustedProxies(config.trustProxy),
    ca: caCertificates,
  };
}
