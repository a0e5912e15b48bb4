/**
 * Where the private signing keys are kept (COREGATE_KEY_STORE): the database, or a PKCS#11
 * token opened here once — a missing module, an unknown token or a refused PIN stops the
 * start with one line naming the setting (docs/operations.md#keys-in-an-hsm).
 */
import { readFileSync, statSync } from 'node:fs';
import { Pkcs11Token } from '../../adapters/crypto/pkcs11/pkcs11-token.js';
import { ConfigError, type Config, type Pkcs11Config } from '../../config/config.js';

/** Opens the configured token; `undefined` with the file store. */
export function openKeyToken(config: Config): Pkcs11Token | undefined {
  if (!config.pkcs11) return undefined;
  return Pkcs11Token.open({
    library: config.pkcs11.library,
    tokenLabel: config.pkcs11.tokenLabel,
    slot: config.pkcs11.slot,
    pin: readPin(config.pkcs11),
    sessions: config.pkcs11.sessions,
  });
}

/** The PIN file's first line; a file others can read is refused like ssh refuses such a key. */
function readPin({ pinFile }: Pkcs11Config): string {
  let text: string;
  try {
    if ((statSync(pinFile).mode & 0o077) !== 0)
      throw new ConfigError('COREGATE_PKCS11_PIN_FILE', `(${pinFile}) can be read by other users: chmod 600 it`);
    text = readFileSync(pinFile, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(
      'COREGATE_PKCS11_PIN_FILE',
      `cannot be read (${pinFile}): ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  const pin = text.split(/\r?\n/)[0] ?? '';
  if (pin.length === 0)
    throw new ConfigError('COREGATE_PKCS11_PIN_FILE', `(${pinFile}) is empty: it holds the user PIN`);
  return pin;
}
