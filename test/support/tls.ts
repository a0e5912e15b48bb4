/**
 * A self-signed certificate for 127.0.0.1 and localhost, made with the `openssl`
 * CLI into a temporary directory, for HTTPS tests.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  return {
    dir,
    certFile,
    keyFile,
    cert: readFileSync(certFile, 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface MutualTlsFiles {
  readonly dir: string;
  readonly caFile: string;
  /** The server's certificate and key, signed by the CA, for 127.0.0.1 and localhost. */
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  /** A client certificate and key signed by the CA. */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  remove(): void;
}

/** A CA, a server certificate and a client certificate signed by it (openssl), for mutual TLS tests. */
export function mutualTlsFiles(): MutualTlsFiles {
  const dir = mkdtempSync(join(tmpdir(), 'coregate-mtls-'));
  const file = (name: string) => join(dir, name);
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe', cwd: dir });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run([
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=coregate test bank CA',
  ]);
  const signed = (name: string, subject: string, extensions: string) => {
    run(['req', ...ecKey, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', subject]);
    writeFileSync(file(`${name}.ext`), extensions);
    run([
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file(`${name}.pem`),
      '-days',
      '2',
      '-extfile',
      file(`${name}.ext`),
    ]);
  };
  signed('server', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  signed('client', '/CN=coregate', 'extendedKeyUsage=clientAuth\n');
  return {
    dir,
    caFile: file('ca.pem'),
    serverCertFile: file('server.pem'),
    serverKeyFile: file('server.key'),
    clientCertFile: file('client.pem'),
    clientKeyFile: file('client.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
