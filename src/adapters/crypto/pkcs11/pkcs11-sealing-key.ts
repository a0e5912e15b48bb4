/**
 * The encryption key (the one that seals secrets at rest, `aes-gcm-sealer.ts`) under an
 * HSM: envelope encryption. An AES-256 key on the token (`CKA_LABEL` prefix + `sealing`,
 * sensitive, never extractable) encrypts the 32-byte encryption key with CKM_AES_GCM; the
 * database keeps only that ciphertext. At start the token decrypts it into this process's
 * memory; it is written nowhere. AES-GCM through C_Encrypt/C_Decrypt rather than
 * C_WrapKey/C_UnwrapKey: an unwrapped key would be a token object whose value must be
 * readable (not sensitive) to be used in memory, which HSMs in FIPS mode refuse.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../ports/clock.js';
import type { WrappedKeyStore } from '../../../ports/wrapped-key-store.js';
import type { Handle, Mechanism } from './pkcs11-binding.js';
import { CK } from './pkcs11-constants.js';
import { SEALING_LABEL_SUFFIX } from './pkcs11-key-custody.js';
import type { Pkcs11Token } from './pkcs11-token.js';

/** Format of the stored value: `v1.<iv>.<ciphertext and tag>` (base64url). */
const VERSION = 'v1';
/** Bound into the ciphertext (AAD): the value opens only as this key. */
const AAD = Buffer.from('coregate encryption key');
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The encryption key, unwrapped by the token; made (and stored wrapped) on the first start. */
export async function unwrapEncryptionKey(
  token: Pkcs11Token,
  labelPrefix: string,
  store: WrappedKeyStore,
  clock: Clock,
): Promise<Buffer> {
  const label = labelPrefix + SEALING_LABEL_SUFFIX;
  const stored =
    (await store.read(label)) ?? (await store.storeFirst(label, await wrapNewKey(token, label), clock.now()));
  return token.withSession((module, session) => {
    const [version, ivText, bodyText] = stored.split('.');
    if (version !== VERSION || !ivText || !bodyText)
      throw new Error('the wrapped encryption key has an unknown format');
    const mechanism = gcm(token, Buffer.from(ivText, 'base64url'));
    const body = Buffer.from(bodyText, 'base64url');
    // Two processes starting together on a fresh token may each have made a wrapping key under
    // the label: the one that wrapped the stored value opens it (GCM authenticates).
    for (const key of wrappingKeys(token, session, label)) {
      try {
        module.C_DecryptInit(session, mechanism, key);
        const material = module.C_Decrypt(session, body, Buffer.alloc(body.length));
        if (material.length === KEY_BYTES) return Buffer.from(material);
      } catch {
        // Not this wrapping key: try the next.
      }
    }
    throw new Error(`no key labelled ${label} on the token opens the wrapped encryption key`);
  });
}

async function wrapNewKey(token: Pkcs11Token, label: string): Promise<string> {
  return token.withSession((module, session) => {
    const key =
      wrappingKeys(token, session, label)[0] ??
      module.C_GenerateKey(session, { mechanism: CK.CKM_AES_KEY_GEN }, [
        { type: CK.CKA_CLASS, value: CK.CKO_SECRET_KEY },
        { type: CK.CKA_KEY_TYPE, value: CK.CKK_AES },
        { type: CK.CKA_VALUE_LEN, value: KEY_BYTES },
        { type: CK.CKA_TOKEN, value: true },
        { type: CK.CKA_PRIVATE, value: true },
        { type: CK.CKA_LABEL, value: label },
        { type: CK.CKA_SENSITIVE, value: true },
        { type: CK.CKA_EXTRACTABLE, value: false },
        { type: CK.CKA_ENCRYPT, value: true },
        { type: CK.CKA_DECRYPT, value: true },
      ]);
    const iv = randomBytes(IV_BYTES);
    const material = randomBytes(KEY_BYTES);
    module.C_EncryptInit(session, gcm(token, iv), key);
    const body = module.C_Encrypt(session, material, Buffer.alloc(KEY_BYTES + TAG_BYTES));
    material.fill(0);
    return [VERSION, iv.toString('base64url'), body.toString('base64url')].join('.');
  });
}

function wrappingKeys(token: Pkcs11Token, session: Handle, label: string): Handle[] {
  return token.find(session, [
    { type: CK.CKA_CLASS, value: CK.CKO_SECRET_KEY },
    { type: CK.CKA_LABEL, value: label },
  ]);
}

function gcm(token: Pkcs11Token, iv: Buffer): Mechanism {
  return {
    mechanism: CK.CKM_AES_GCM,
    parameter: { type: token.tags.gcm, iv, ivBits: IV_BYTES * 8, aad: AAD, tagBits: TAG_BYTES * 8 },
  };
}
