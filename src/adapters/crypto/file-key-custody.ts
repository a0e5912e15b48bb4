/**
 * Signing keys kept in the database: generated in this process, the private JWK sealed
 * with the encryption key (`aes-gcm-sealer.ts`) into the key's row. Every process that
 * holds the encryption key can sign; nothing is to be destroyed apart from the row.
 */
import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { SigningAlg } from '../../domain/signing-alg.js';
import type { SecretSealer } from '../../ports/secret-sealer.js';
import type { CustodyKey, JwsSign, SigningKeyCustody } from '../../ports/signing-key-custody.js';
import { signJws } from './jws-algorithms.js';

function sealContext(kid: string): string {
  return `signing-key:${kid}`;
}

/** Public members of each key type's JWK (RFC 7518 §6.2.1, §6.3.1; RFC 8037 §2): never a private one. */
const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e'] as const;

function publicMembers(jwk: JWK): Record<string, unknown> {
  return Object.fromEntries(PUBLIC_MEMBERS.flatMap((name) => (jwk[name] === undefined ? [] : [[name, jwk[name]]])));
}

export class FileKeyCustody implements SigningKeyCustody {
  readonly name = 'file';

  constructor(private readonly sealer: SecretSealer) {}

  /** Sealed values start with the sealer's version (`v1.`); references to keys elsewhere never do. */
  holds(privatePart: string): boolean {
    return privatePart.startsWith('v1.');
  }

  async generate(kid: string, alg: SigningAlg): Promise<CustodyKey> {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    return {
      publicJwk: publicMembers(await exportJWK(publicKey)),
      privatePart: this.sealer.seal(JSON.stringify(await exportJWK(privateKey)), sealContext(kid)),
    };
  }

  signer(key: { readonly kid: string; readonly alg: SigningAlg; readonly privatePart: string }): Promise<JwsSign> {
    const privateJwk = JSON.parse(this.sealer.open(key.privatePart, sealContext(key.kid))) as JsonWebKey;
    const signingKey = createPrivateKey({ key: privateJwk, format: 'jwk' });
    return Promise.resolve((input) => Promise.resolve(signJws(key.alg, signingKey, input)));
  }

  /** The private parts are in the keys' rows: nothing is kept apart from them. */
  heldKids(): Promise<readonly string[]> {
    return Promise.resolve([]);
  }

  destroy(): Promise<void> {
    return Promise.resolve();
  }
}
