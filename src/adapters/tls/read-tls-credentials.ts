/**
 * Reads and checks the files of native HTTPS. File I/O, so it lives here and not in
 * the configuration: `loadConfig` only resolves the paths; `serve` reads them at
 * start (CLI commands need no key file). A bad file is a {@link ConfigError} naming
 * its variable, like any other bad setting.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../../config/config.js';

/** The certificate and key of native HTTPS, read and checked. */
export interface TlsCredentials {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** When the (leaf) certificate expires. */
  readonly validTo: Date;
  /** The CA(s) of client certificates (COREGATE_TLS_CLIENT_CA_FILE): coregate asks callers for a certificate. */
  readonly clientCa?: Buffer;
}

/** The CA certificates of `COREGATE_TLS_CLIENT_CA_FILE`, checked; `undefined` when it is not set. */
export function readClientCa(config: Pick<Config, 'tlsClientCaFile'>): Buffer | undefined {
  if (config.tlsClientCaFile === undefined) return undefined;
  const pem = readPem('COREGATE_TLS_CLIENT_CA_FILE', config.tlsClientCaFile);
  try {
    new X509Certificate(pem);
  } catch {
    throw new ConfigError('COREGATE_TLS_CLIENT_CA_FILE', `is not a PEM certificate: ${config.tlsClientCaFile}`);
  }
  return pem;
}

function readPem(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(variable, `cannot be read: ${path} (${code})`);
  }
}

/**
 * Reads the files `COREGATE_TLS_CERT_FILE` and `COREGATE_TLS_KEY_FILE` name and checks
 * that they are a PEM certificate and the unencrypted PEM private key matching it.
 * `undefined` when HTTPS is not configured.
 */
export function readTlsCredentials(
  config: Pick<Config, 'tlsCertFile' | 'tlsKeyFile'> & Partial<Pick<Config, 'tlsClientCaFile'>>,
): TlsCredentials | undefined {
  if (config.tlsCertFile === undefined || config.tlsKeyFile === undefined) return undefined;
  const cert = readPem('COREGATE_TLS_CERT_FILE', config.tlsCertFile);
  const key = readPem('COREGATE_TLS_KEY_FILE', config.tlsKeyFile);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError('COREGATE_TLS_CERT_FILE', `is not a PEM certificate: ${config.tlsCertFile}`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    // Never echo the file's content: it is a secret.
    throw new ConfigError('COREGATE_TLS_KEY_FILE', `is not an unencrypted PEM private key: ${config.tlsKeyFile}`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ConfigError(
      'COREGATE_TLS_KEY_FILE',
      `does not match the certificate in COREGATE_TLS_CERT_FILE (${config.tlsKeyFile})`,
    );
  }
  const clientCa = readClientCa({ tlsClientCaFile: config.tlsClientCaFile });
  return { cert, key, validTo: new Date(certificate.validTo), ...(clientCa ? { clientCa } : {}) };
}
