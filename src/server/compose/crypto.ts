/** Sealing and digests under the configured encryption keys. */
import { AesGcmSealer } from '../../adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey, encryptionKeys, type EncryptionKey } from '../../adapters/crypto/encryption-keys.js';
import { HmacCredentialHasher } from '../../adapters/crypto/hmac-credential-hasher.js';
import { unwrapEncryptionKey } from '../../adapters/crypto/pkcs11/pkcs11-sealing-key.js';
import type { Pkcs11Token } from '../../adapters/crypto/pkcs11/pkcs11-token.js';
import { SqlSigningKeyStore } from '../../adapters/store/sql-signing-key-store.js';
import { SqlWrappedKeyStore } from '../../adapters/store/sql-wrapped-key-store.js';
import { ConfigError } from '../../config/config.js';
import type { Clock } from '../../ports/clock.js';
import type { Basics } from './basics.js';

export interface SealerAndHasher {
  /** Seals delegate reference IDs, core API keys, webhook secrets and private signing keys. */
  readonly sealer: AesGcmSealer;
  /** Keyed digests of client secrets and refresh tokens. */
  readonly hasher: HmacCredentialHasher;
}

/**
 * The sealer and the hasher under COREGATE_ENCRYPTION_KEY (and the previous keys),
 * once a stored signing key shows that one of them opens what the database holds.
 * With a PKCS#11 `token` the key that seals is the one the token unwraps; the
 * configured keys, if any, still open what they sealed before the move to the HSM.
 */
export async function openCrypto({ config, database, clock }: Basics, token?: Pkcs11Token): Promise<SealerAndHasher> {
  const keys: [EncryptionKey, ...EncryptionKey[]] =
    token && config.pkcs11
      ? [
          encryptionKey(
            await unwrapEncryptionKey(token, config.pkcs11.keyLabelPrefix, new SqlWrappedKeyStore(database), clock),
          ),
          ...[config.encryptionKey, ...config.previousEncryptionKeys].flatMap((material) =>
            material ? [encryptionKey(material)] : [],
          ),
        ]
      : encryptionKeys(config);
  await requireKeyForStoredData(new SqlSigningKeyStore(database), keys, clock);
  return { sealer: new AesGcmSealer(keys), hasher: new HmacCredentialHasher(keys) };
}

/**
 * Refuses to start when none of the configured encryption keys opens what the
 * database holds (the active signing key is sealed like every secret): such a
 * process would answer every client `invalid_client` and its JWKS with 500. One
 * line names the variable and the key id the data needs.
 */
async function requireKeyForStoredData(
  store: SqlSigningKeyStore,
  keys: readonly { readonly id: string }[],
  clock: Clock,
): Promise<void> {
  const active = (await store.listPublished(clock.now())).find((key) => key.retiredAt === null);
  if (!active) return;
  const needed = active.privateSealed.split('.')[1];
  if (needed === undefined || keys.some((key) => key.id === needed)) return;
  throw new ConfigError(
    'COREGATE_ENCRYPTION_KEY',
    `does not open the stored data: it was sealed with the key whose id is ${needed} (this process has ${keys.map((key) => key.id).join(', ')}); set that key, or keep it in COREGATE_PREVIOUS_ENCRYPTION_KEYS after a rotation`,
  );
}
