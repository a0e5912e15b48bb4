import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { HmacCredentialHasher } from '../../src/adapters/crypto/hmac-credential-hasher.js';

const oldKey = encryptionKey(randomBytes(32));
const newKey = encryptionKey(randomBytes(32));

describe('HmacCredentialHasher', () => {
  const hasher = new HmacCredentialHasher([oldKey]);

  it('generates prefixed credentials with at least 256 random bits', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const secret = hasher.generate('cgs_');
      assert.match(secret, /^cgs_[A-Za-z0-9_-]{43,}$/);
      assert.ok(Buffer.from(secret.slice(4), 'base64url').length >= 32, '≥ 32 bytes behind the prefix');
      seen.add(secret);
    }
    assert.equal(seen.size, 200);
  });

  it('digests deterministically, without the secret in the digest', () => {
    const secret = hasher.generate('cgs_');
    const digest = hasher.digest(secret);
    assert.equal(hasher.digest(secret), digest);
    assert.ok(!digest.includes(secret));
    assert.ok(!digest.includes(secret.slice(4)));
    assert.ok(digest.startsWith(`${oldKey.id}.`));
    assert.notEqual(hasher.digest(hasher.generate('cgs_')), digest);
  });

  it('matches the right credential only', () => {
    const secret = hasher.generate('cgs_');
    const digest = hasher.digest(secret);
    assert.equal(hasher.matches(secret, digest), true);
    assert.equal(hasher.matches(`${secret}x`, digest), false);
    assert.equal(hasher.matches(secret.slice(0, -1), digest), false);
    assert.equal(hasher.matches('', digest), false);
    assert.equal(hasher.matches(hasher.generate('cgs_'), digest), false);
  });

  it('refuses malformed digests instead of throwing', () => {
    const secret = hasher.generate('cgs_');
    const digest = hasher.digest(secret);
    for (const bad of [
      '',
      'nodot',
      `${oldKey.id}.`,
      `${oldKey.id}.AAAA`,
      `unknownkey.${digest.split('.')[1]}`,
      digest.slice(0, -2),
    ]) {
      assert.equal(hasher.matches(secret, bad), false, `digest "${bad}"`);
    }
  });

  it('depends on the key: another key does not match', () => {
    const secret = hasher.generate('cgs_');
    assert.equal(new HmacCredentialHasher([newKey]).matches(secret, hasher.digest(secret)), false);
  });

  it('after a key rotation, digests from the old key still match when it is listed second', () => {
    const secret = hasher.generate('cgs_');
    const oldDigest = hasher.digest(secret);
    const rotated = new HmacCredentialHasher([newKey, oldKey]);
    assert.equal(rotated.matches(secret, oldDigest), true);
    const newDigest = rotated.digest(secret);
    assert.ok(newDigest.startsWith(`${newKey.id}.`));
    assert.equal(rotated.matches(secret, newDigest), true);
    assert.equal(hasher.matches(secret, newDigest), false, 'a process without the new key cannot check new digests');
  });
});
