/**
 * Signing keys generated on a PKCS#11 token, where they stay: the private key is
 * `CKA_SENSITIVE` and not `CKA_EXTRACTABLE`, labelled (`CKA_LABEL`) with the prefix and
 * the kid, its `CKA_ID` the kid. The database keeps the public JWK and `pkcs11:<label>`.
 * A key the token did not generate itself (`CKA_LOCAL` false: imported) or that could
 * leave it is refused for signing. Mechanisms (PKCS#11 v3.0 §6.3, §2.3, §2.1.14):
 * CKM_EDDSA over Ed25519, CKM_ECDSA over P-256 on the SHA-256 digest, CKM_RSA_PKCS_PSS
 * (SHA-256, MGF1-SHA-256, 32-byte salt) on the digest for PS256 — the digest is computed
 * here, as most HSMs and SoftHSM2 offer the hash-less mechanisms.
 */
import { createHash } from 'node:crypto';
import type { SigningAlg } from '../../../domain/signing-alg.js';
import {
  KeyCustodyUnavailable,
  type CustodyKey,
  type JwsSign,
  type SigningKeyCustody,
} from '../../../ports/signing-key-custody.js';
import type { Attribute, Handle, Mechanism, Pkcs11Failure, Pkcs11Module } from './pkcs11-binding.js';
import { CK, CURVE_OIDS } from './pkcs11-constants.js';
import type { Pkcs11Token } from './pkcs11-token.js';

const REFERENCE = 'pkcs11:';
/** The label suffix of the AES key that wraps the encryption key (`pkcs11-sealing-key.ts`): never a kid. */
export const SEALING_LABEL_SUFFIX = 'sealing';
const RSA_BITS = 2048;
/** CKA_LOCAL, CKA_NEVER_EXTRACTABLE, CKA_ALWAYS_SENSITIVE: generated on the token and never out of it. */
const CKA_LOCAL = 0x163;
const CKA_NEVER_EXTRACTABLE = 0x164;
const CKA_ALWAYS_SENSITIVE = 0x165;
const CKR_OBJECT_HANDLE_INVALID = 0x82;

export class Pkcs11KeyCustody implements SigningKeyCustody {
  readonly name = 'pkcs11';

  constructor(
    private readonly token: Pkcs11Token,
    private readonly labelPrefix: string,
  ) {}

  holds(privatePart: string): boolean {
    return privatePart.startsWith(REFERENCE);
  }

  generate(kid: string, alg: SigningAlg): Promise<CustodyKey> {
    const label = this.labelPrefix + kid;
    return this.token.withSession((module, session) => {
      const common: Attribute[] = [
        { type: CK.CKA_TOKEN, value: true },
        { type: CK.CKA_LABEL, value: label },
        { type: CK.CKA_ID, value: Buffer.from(kid) },
      ];
      const { mechanism, publicTemplate } = generation(alg);
      // Signing keys that do nothing else: no decryption, wrapping or derivation.
      const pair = module.C_GenerateKeyPair(
        session,
        mechanism,
        [
          ...common,
          ...publicTemplate,
          { type: CK.CKA_VERIFY, value: true },
          { type: CK.CKA_ENCRYPT, value: false },
          { type: CK.CKA_WRAP, value: false },
        ],
        [
          ...common,
          { type: CK.CKA_PRIVATE, value: true },
          { type: CK.CKA_SENSITIVE, value: true },
          { type: CK.CKA_EXTRACTABLE, value: false },
          { type: CK.CKA_SIGN, value: true },
          { type: CK.CKA_DECRYPT, value: false },
          { type: CK.CKA_UNWRAP, value: false },
          { type: CK.CKA_DERIVE, value: false },
        ],
      );
      return { publicJwk: publicJwk(module, session, pair.publicKey, alg), privatePart: REFERENCE + label };
    });
  }

  /**
   * Touches the token only when it signs, so that the keys (and the JWKS) load while the
   * token is away; the key's attributes are checked before its first signature.
   */
  signer(key: { readonly kid: string; readonly alg: SigningAlg; readonly privatePart: string }): Promise<JwsSign> {
    const label = key.privatePart.slice(REFERENCE.length);
    const mechanism = this.signMechanism(key.alg);
    const prepare =
      key.alg === 'EdDSA' ? (input: Buffer) => input : (input: Buffer) => createHash('sha256').update(input).digest();
    const length = key.alg === 'PS256' ? RSA_BITS / 8 : 64;
    let checked = false;
    return Promise.resolve((input) =>
      this.token.withSession(async (module, session) => {
        const handle = this.privateKey(session, label);
        if (!checked) {
          requireKeptOnToken(module, session, handle, label);
          checked = true;
        }
        module.C_SignInit(session, mechanism, handle);
        return module.C_SignAsync(session, prepare(input), Buffer.alloc(length));
      }),
    );
  }

  heldKids(): Promise<readonly string[]> {
    return this.token.withSession((module, session) =>
      this.token
        .find(session, [{ type: CK.CKA_CLASS, value: CK.CKO_PRIVATE_KEY }])
        .map((handle) => String(module.C_GetAttributeValue(session, handle, [{ type: CK.CKA_LABEL }])[0]?.value ?? ''))
        .filter((label) => label.startsWith(this.labelPrefix))
        .map((label) => label.slice(this.labelPrefix.length)),
    );
  }

  destroy(kid: string): Promise<void> {
    return this.token.withSession((module, session) => {
      for (const handle of this.token.find(session, [{ type: CK.CKA_LABEL, value: this.labelPrefix + kid }])) {
        try {
          module.C_DestroyObject(session, handle);
        } catch (error) {
          // Another process destroyed it first: what was asked is done.
          if ((error as Pkcs11Failure).code !== CKR_OBJECT_HANDLE_INVALID) throw error;
        }
      }
      this.token.forgetHandles();
    });
  }

  private privateKey(session: Handle, label: string): Handle {
    const handle = this.token.handle(session, CK.CKO_PRIVATE_KEY, label);
    if (!handle) throw new KeyCustodyUnavailable(`PKCS#11 token: no private key labelled ${label}`);
    return handle;
  }

  private signMechanism(alg: SigningAlg): Mechanism {
    switch (alg) {
      case 'EdDSA':
        return { mechanism: CK.CKM_EDDSA };
      case 'ES256':
        return { mechanism: CK.CKM_ECDSA };
      case 'PS256':
        return {
          mechanism: CK.CKM_RSA_PKCS_PSS,
          parameter: { type: this.token.tags.rsaPss, hashAlg: CK.CKM_SHA256, mgf: CK.CKG_MGF1_SHA256, saltLen: 32 },
        };
    }
  }
}

/** Refuses a key that was imported or could be extracted: it is not an HSM key. */
function requireKeptOnToken(module: Pkcs11Module, session: Handle, handle: Handle, label: string): void {
  const [local, neverExtractable, alwaysSensitive] = module
    .C_GetAttributeValue(session, handle, [
      { type: CKA_LOCAL },
      { type: CKA_NEVER_EXTRACTABLE },
      { type: CKA_ALWAYS_SENSITIVE },
    ])
    .map((attribute) => isTrue(attribute.value));
  if (!local || !neverExtractable || !alwaysSensitive) {
    throw new KeyCustodyUnavailable(
      `PKCS#11 token: the key labelled ${label} was not generated on the token or could leave it (CKA_LOCAL, CKA_NEVER_EXTRACTABLE, CKA_ALWAYS_SENSITIVE must be true): refused`,
    );
  }
}

function generation(alg: SigningAlg): { mechanism: Mechanism; publicTemplate: Attribute[] } {
  switch (alg) {
    case 'EdDSA':
      return {
        mechanism: { mechanism: CK.CKM_EC_EDWARDS_KEY_PAIR_GEN },
        publicTemplate: [{ type: CK.CKA_EC_PARAMS, value: CURVE_OIDS.Ed25519 }],
      };
    case 'ES256':
      return {
        mechanism: { mechanism: CK.CKM_EC_KEY_PAIR_GEN },
        publicTemplate: [{ type: CK.CKA_EC_PARAMS, value: CURVE_OIDS['P-256'] }],
      };
    case 'PS256':
      return {
        mechanism: { mechanism: CK.CKM_RSA_PKCS_KEY_PAIR_GEN },
        publicTemplate: [
          { type: CK.CKA_MODULUS_BITS, value: RSA_BITS },
          { type: CK.CKA_PUBLIC_EXPONENT, value: Buffer.from([1, 0, 1]) },
        ],
      };
  }
}

/** The public key read back from the token, as a JWK (RFC 8037 §2, RFC 7518 §6.2.1 and §6.3.1). */
function publicJwk(module: Pkcs11Module, session: Handle, handle: Handle, alg: SigningAlg): Record<string, unknown> {
  if (alg === 'PS256') {
    const [modulus, exponent] = module
      .C_GetAttributeValue(session, handle, [{ type: CK.CKA_MODULUS }, { type: CK.CKA_PUBLIC_EXPONENT }])
      .map((attribute) => attribute.value as Buffer);
    return { kty: 'RSA', n: modulus!.toString('base64url'), e: exponent!.toString('base64url') };
  }
  const encoded = module.C_GetAttributeValue(session, handle, [{ type: CK.CKA_EC_POINT }])[0]!.value as Buffer;
  const point = ecPoint(encoded, alg === 'EdDSA' ? 32 : 65);
  if (alg === 'EdDSA') return { kty: 'OKP', crv: 'Ed25519', x: point.toString('base64url') };
  // An uncompressed point (SEC 1 §2.3.3): 0x04, then x and y.
  if (point.length !== 65 || point[0] !== 0x04)
    throw new Error('the token returned a P-256 point that is not uncompressed');
  return {
    kty: 'EC',
    crv: 'P-256',
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33).toString('base64url'),
  };
}

/**
 * CKA_EC_POINT is the point DER-encoded as an OCTET STRING (PKCS#11 v3.0 §2.3.3, §2.3.5);
 * some modules return the raw point. Both are taken, by their length.
 */
function ecPoint(value: Buffer, rawLength: number): Buffer {
  if (value.length === rawLength) return value;
  if (value.length === rawLength + 2 && value[0] === 0x04 && value[1] === rawLength) return value.subarray(2);
  throw new Error(`the token returned an EC point of ${value.length} bytes`);
}

function isTrue(value: Attribute['value']): boolean {
  return value === true || (Buffer.isBuffer(value) && value.length > 0 && value[0] !== 0);
}
