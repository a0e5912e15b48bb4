/**
 * A fresh SoftHSM2 token per test file: its own configuration and token directory in a
 * temporary dir (SoftHSM2 reads `SOFTHSM2_CONF` when the module is initialised), a PIN
 * file for coregate, and `pkcs11-tool` (OpenSC) to read the token back independently of
 * coregate. Tests skip with the reason where SoftHSM2 or the binding are not installed
 * (CI installs them: .ci/run).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MODULE_PATHS = ['/usr/lib/softhsm/libsofthsm2.so', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so'];
const SOFTHSM_MODULE = MODULE_PATHS.find((path) => existsSync(path));

function bindingInstalled(): boolean {
  try {
    createRequire(import.meta.url)('pkcs11js');
    return true;
  } catch {
    return false;
  }
}

function commandExists(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why the SoftHSM2 tests cannot run here, or false. */
export const softHsmSkip: string | false = !SOFTHSM_MODULE
  ? 'SoftHSM2 is not installed (apt-get install softhsm2 opensc)'
  : !commandExists('softhsm2-util') || !commandExists('pkcs11-tool')
    ? 'softhsm2-util or pkcs11-tool (opensc) is missing'
    : !bindingInstalled()
      ? 'the PKCS#11 binding (pkcs11js) is not installed'
      : false;

/** An object on the token as pkcs11-tool lists it. */
interface TokenObject {
  readonly kind: string;
  readonly label: string;
  /** pkcs11-tool's `Access:` words: `sensitive`, `always sensitive`, `never extractable`, `local`. */
  readonly access: readonly string[];
  readonly usage: readonly string[];
}

export interface SoftHsmToken {
  readonly label: string;
  /** A PIN no log line may contain. */
  readonly pin: string;
  readonly pinFile: string;
  /** coregate's settings for this token. */
  readonly env: Record<string, string>;
  /** Every object on the token, read with pkcs11-tool. */
  objects(): TokenObject[];
  /** Writes a private key made elsewhere into the token (C_CreateObject), as an operator importing one would. */
  importPrivateKey(pem: string, label: string): void;
  /** Makes the token vanish from under a running process (its directory moved away), and back. */
  remove(): void;
  restore(): void;
  close(): void;
}

/** Initialises a token in a fresh directory and points this process's SoftHSM2 at it. */
export function createSoftHsmToken(tokenLabel = 'coregate-test'): SoftHsmToken {
  const dir = mkdtempSync(join(tmpdir(), 'coregate-softhsm-'));
  const tokens = join(dir, 'tokens');
  mkdirSync(tokens);
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env['SOFTHSM2_CONF'] = conf;
  const pin = `pin-${Math.random().toString(36).slice(2, 10)}`;
  execFileSync(
    'softhsm2-util',
    ['--init-token', '--free', '--label', tokenLabel, '--pin', pin, '--so-pin', `so-${pin}`],
    {
      stdio: 'ignore',
      env: { ...process.env, SOFTHSM2_CONF: conf },
    },
  );
  const pinFile = join(dir, 'pin');
  writeFileSync(pinFile, `${pin}\n`, { mode: 0o600 });
  const away = join(dir, 'away');
  return {
    label: tokenLabel,
    pin,
    pinFile,
    env: {
      COREGATE_KEY_STORE: 'pkcs11',
      COREGATE_PKCS11_LIBRARY: SOFTHSM_MODULE!,
      COREGATE_PKCS11_TOKEN_LABEL: tokenLabel,
      COREGATE_PKCS11_PIN_FILE: pinFile,
      SOFTHSM2_CONF: conf,
    },
    objects() {
      const listing = execFileSync(
        'pkcs11-tool',
        ['--module', SOFTHSM_MODULE!, '--token-label', tokenLabel, '--login', '--pin', pin, '--list-objects'],
        { encoding: 'utf8', env: { ...process.env, SOFTHSM2_CONF: conf }, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      return parseObjects(listing);
    },
    importPrivateKey(pem, label) {
      const file = join(dir, 'imported.pem');
      writeFileSync(file, pem, { mode: 0o600 });
      execFileSync(
        'pkcs11-tool',
        ['--module', SOFTHSM_MODULE!, '--token-label', tokenLabel, '--login', '--pin', pin].concat([
          '--write-object',
          file,
          '--type',
          'privkey',
          '--label',
          label,
          '--usage-sign',
        ]),
        { env: { ...process.env, SOFTHSM2_CONF: conf }, stdio: 'ignore' },
      );
      rmSync(file);
    },
    remove() {
      renameSync(tokens, away);
    },
    restore() {
      renameSync(away, tokens);
    },
    close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function parseObjects(listing: string): TokenObject[] {
  const objects: { kind: string; label: string; access: string[]; usage: string[] }[] = [];
  for (const line of listing.split('\n')) {
    const header = /^(Private Key|Public Key|Secret Key) Object/.exec(line);
    if (header) objects.push({ kind: header[1]!, label: '', access: [], usage: [] });
    const field = /^\s+(label|Access|Usage):\s+(.*)$/.exec(line);
    const current = objects.at(-1);
    if (!field || !current) continue;
    if (field[1] === 'label') current.label = field[2]!.trim();
    else if (field[1] === 'Access') current.access = field[2]!.split(',').map((word) => word.trim());
    else current.usage = field[2]!.split(',').map((word) => word.trim());
  }
  return objects;
}
