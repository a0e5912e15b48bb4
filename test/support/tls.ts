/**
 * A self-signed certificate for 127.0.0.1 and localhost, made with the `openssl`
 * CLI into a temporary directory, for HTTPS tests.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  readonly dir: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** The certificate's PEM: the CA a client must trust. */
  readonly cert: string;
  remove(): void;
}

export function selfSignedCertificate(commonName = 'localhost'): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'coregate-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-keyout', keyFile, '-out', certFile, '-days', '2',
      '-subj', `/CN=${commonName}`,
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  return { dir, certFile, keyFile, cert: readFileSync(certFile, 'utf8'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
