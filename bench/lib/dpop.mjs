/**
 * DPoP proofs (RFC 9449 §4.2) for the DPoP-bound accounts row: the client's key, the proof of
 * its token request, and batches of proofs the load generator signs before a timed window
 * (one per request: each has its own `jti`, and coregate accepts a `jti` once).
 */
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose';

/** What the benchmark signs with: the algorithm DPoP clients use most (oauth4webapi's default). */
export const DPOP_ALG = 'ES256';

/** A key pair as JWKs, so that it crosses to the load generator over IPC. */
export async function dpopKey() {
  const { publicKey, privateKey } = await generateKeyPair(DPOP_ALG, { extractable: true });
  return { alg: DPOP_ALG, publicJwk: await exportJWK(publicKey), privateJwk: await exportJWK(privateKey) };
}

/** The `ath` claim: the access token's SHA-256, base64url (RFC 9449 §4.2). */
export function accessTokenHash(accessToken) {
  return createHash('sha256').update(accessToken).digest('base64url');
}

const importedKeys = new Map();

function privateKeyOf(key) {
  const id = key.publicJwk.x + key.publicJwk.y;
  if (!importedKeys.has(id)) importedKeys.set(id, importJWK(key.privateJwk, key.alg));
  return importedKeys.get(id);
}

/** One proof for `htm` `htu` (with `ath` when the request carries an access token). */
export async function dpopProof(key, { htm, htu, accessToken }) {
  return new SignJWT({
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    htm,
    htu,
    ...(accessToken ? { ath: accessTokenHash(accessToken) } : {}),
  })
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk })
    .sign(await privateKeyOf(key));
}

/**
 * `count` proofs for one request (`spec.dpop`: `{key, htm, htu, accessToken}`), `ath` hashed once.
 * Signing is the load generator's work: done before the window it would otherwise take CPU from.
 */
export async function dpopProofs(spec, count) {
  const privateKey = await privateKeyOf(spec.key);
  const header = { alg: spec.key.alg, typ: 'dpop+jwt', jwk: spec.key.publicJwk };
  const ath = accessTokenHash(spec.accessToken);
  const iat = Math.floor(Date.now() / 1000);
  const proofs = [];
  for (let index = 0; index < count; index += 1) {
    proofs.push(
      await new SignJWT({ iat, jti: randomUUID(), htm: spec.htm, htu: spec.htu, ath })
        .setProtectedHeader(header)
        .sign(privateKey),
    );
  }
  return proofs;
}
