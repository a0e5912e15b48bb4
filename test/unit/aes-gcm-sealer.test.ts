import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';

const oldKey = encryptionKey(randomBytes(32));
const newKey = encryptionKey(randomBytes(32));

/** Flips one bit of the part of a sealed value at `index` (after base64url decoding). */
function tamper(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[0]! ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('AesGcmSealer', () => {
  const sealer = new AesGcmSealer([oldKey]);

  it('opens what it sealed, for empty, ASCII and non-ASCII text', () => {
    for (const text of ['', 'delegate-ref-123', 'ümlaut ✓ 🔑', 'x'.repeat(10_000)]) {
      assert.equal(sealer.open(sealer.seal(text, 'row:1'), 'row:1'), text);
    }
  });

  it('never shows the plaintext and uses a fresh IV each time', () => {
    const a = sealer.seal('delegate-ref-123', 'row:1');
    const b = sealer.seal('delegate-ref-123', 'row:1');
    assert.notEqual(a, b);
    assert.ok(!a.includes('delegate-ref-123'));
    assert.match(a, new RegExp(`^v1\\.${oldKey.id}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
  });

  it('refuses a tampered IV or ciphertext', () => {
    const sealed = sealer.seal('delegate-ref-123', 'row:1');
    assert.throws(() => sealer.open(tamper(sealed, 2), 'row:1'));
    assert.throws(() => sealer.open(tamper(sealed, 3), 'row:1'));
  });

  it('refuses a value truncated or in another format', () => {
    const sealed = sealer.seal('delegate-ref-123', 'row:1');
    assert.throws(() => sealer.open(sealed.slice(0, -4), 'row:1'));
    assert.throws(() => sealer.open(`${sealed}.extra`, 'row:1'), /unknown format/);
    assert.throws(() => sealer.open(sealed.replace(/^v1/, 'v2'), 'row:1'), /unknown format/);
    assert.throws(() => sealer.open('', 'row:1'), /unknown format/);
  });

  it('refuses to open a value under another context (moved to another row)', () => {
    const sealed = sealer.seal('delegate-ref-123', 'row:1');
    assert.throws(() => sealer.open(sealed, 'row:2'));
  });

  it('after a key rotation, opens values sealed with the old key and seals with the new one', () => {
    const sealedBefore = sealer.seal('delegate-ref-123', 'row:1');
    const rotated = new AesGcmSealer([newKey, oldKey]);
    assert.equal(rotated.open(sealedBefore, 'row:1'), 'delegate-ref-123');
    const sealedAfter = rotated.seal('delegate-ref-456', 'row:1');
    assert.equal(sealedAfter.split('.')[1], newKey.id);
    assert.equal(new AesGcmSealer([newKey]).open(sealedAfter, 'row:1'), 'delegate-ref-456');
  });

  it('refuses a value sealed with a key it does not have, naming the key id', () => {
    const sealed = sealer.seal('delegate-ref-123', 'row:1');
    assert.throws(() => new AesGcmSealer([newKey]).open(sealed, 'row:1'), new RegExp(oldKey.id));
  });

  it('refuses a value whose key id was swapped for another key it has', () => {
    const sealed = sealer.seal('delegate-ref-123', 'row:1');
    const swapped = sealed.replace(`.${oldKey.id}.`, `.${newKey.id}.`);
    assert.throws(() => new AesGcmSealer([newKey, oldKey]).open(swapped, 'row:1'));
  });
});
