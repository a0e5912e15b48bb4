/**
 * The in-process association cache: reads within its lifetime skip the database,
 * writes through it take effect at once, other processes' writes within the TTL,
 * and an absent customer is never cached.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { CachingAssociationStore } from '../../src/adapters/store/caching-association-store.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { SqlAssociationStore } from '../../src/adapters/store/sql-association-store.js';
import { pgliteBackend, type OpenBackend } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';

describe('CachingAssociationStore (pglite)', () => {
  let opened: OpenBackend;
  let sql: SqlAssociationStore;
  let cached: CachingAssociationStore;
  const clock = new FakeClock();
  const session = (id: string) => ({
    customerKey: 'C-1001',
    delegateReferenceId: id,
    expiresAt: new Date(clock.now().getTime() + 900_000),
  });

  before(async () => {
    opened = await pgliteBackend.open();
    await migrate(opened.database);
    sql = new SqlAssociationStore(opened.database, new AesGcmSealer([encryptionKey(randomBytes(32))]));
    cached = new CachingAssociationStore(sql, clock, 5);
  });
  after(() => opened?.close());

  it('serves a read within its lifetime from memory, and re-reads after it', async () => {
    const key = { institution: 'default', platform: 'p', customerId: 'read' };
    await sql.register(key, session('delegate-1'), clock.now());
    assert.equal((await cached.find(key))?.delegateReferenceId, 'delegate-1');
    // Another process registers again: not seen while the entry lives...
    await sql.register(key, session('delegate-2'), clock.now());
    clock.advance(4);
    assert.equal((await cached.find(key))?.delegateReferenceId, 'delegate-1');
    // ...and seen once it lapses.
    clock.advance(1);
    assert.equal((await cached.find(key))?.delegateReferenceId, 'delegate-2');
  });

  it('never caches an absent customer', async () => {
    const key = { institution: 'default', platform: 'p', customerId: 'late' };
    assert.equal(await cached.find(key), undefined);
    await sql.register(key, session('delegate-late'), clock.now());
    assert.equal((await cached.find(key))?.delegateReferenceId, 'delegate-late');
  });

  it('applies its own writes at once: registration, renewal, re-registration mark, deletion', async () => {
    const key = { institution: 'default', platform: 'p', customerId: 'writes' };
    await cached.register(key, session('d-1'), clock.now());
    const first = (await cached.find(key))!;
    await cached.register(key, session('d-2'), clock.now());
    assert.equal((await cached.find(key))?.delegateReferenceId, 'd-2', 'registration');

    const current = (await cached.find(key))!;
    const claim = await cached.claimRenewal(
      key,
      current.version,
      'me',
      clock.now(),
      new Date(clock.now().getTime() + 10_000),
    );
    assert.equal(claim.outcome, 'claimed');
    await cached.completeRenewal(key, current.version, 'me', session('d-3'), clock.now());
    assert.equal((await cached.find(key))?.delegateReferenceId, 'd-3', 'renewal');
    assert.ok(first.version < (await cached.find(key))!.version);

    await cached.markNeedsReregistration(key, (await cached.find(key))!.version, clock.now());
    assert.equal((await cached.find(key))?.needsReregistration, true, 're-registration mark');

    assert.equal(await cached.delete(key), true);
    assert.equal(await cached.find(key), undefined, 'deletion');
  });

  it('with a lifetime of 0 always reads the database', async () => {
    const uncached = new CachingAssociationStore(sql, clock, 0);
    const key = { institution: 'default', platform: 'p', customerId: 'zero' };
    await sql.register(key, session('z-1'), clock.now());
    assert.equal((await uncached.find(key))?.delegateReferenceId, 'z-1');
    await sql.register(key, session('z-2'), clock.now());
    assert.equal((await uncached.find(key))?.delegateReferenceId, 'z-2');
  });

  it('shares one database read between concurrent callers, and keeps nothing a write overtook', async () => {
    const key = { institution: 'default', platform: 'p', customerId: 'shared' };
    await sql.register(key, session('s-1'), clock.now());
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const counting = Object.create(sql) as SqlAssociationStore;
    counting.find = async (k) => {
      reads += 1;
      const found = await sql.find(k);
      await gate;
      return found;
    };
    const store = new CachingAssociationStore(counting, clock, 5);
    const pending = [store.find(key), store.find(key), store.find(key)];
    await new Promise((resolve) => setImmediate(resolve));
    // A registration through this process lands while the read is under way...
    await store.register(key, session('s-2'), clock.now());
    release();
    const answers = await Promise.all(pending);
    assert.equal(reads, 1, 'one read for three callers');
    assert.deepEqual(
      answers.map((a) => a?.delegateReferenceId),
      ['s-1', 's-1', 's-1'],
    );
    // ...so what the read saw is not kept: the next read sees the registration.
    assert.equal((await store.find(key))?.delegateReferenceId, 's-2');
    assert.equal(reads, 2);
  });

  it('answers a look-up of an absent customer that a registration overtook (not an error), and keeps nothing of it', async () => {
    const key = { institution: 'default', platform: 'p', customerId: 'overtaken' };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let looked!: () => void;
    const lookedUp = new Promise<void>((resolve) => (looked = resolve));
    const gated = Object.create(sql) as SqlAssociationStore;
    gated.find = async (k) => {
      const found = await sql.find(k);
      looked();
      await gate;
      return found;
    };
    const store = new CachingAssociationStore(gated, clock, 5);
    const pending = store.find(key);
    // The look-up has read the database (nothing there yet) before the registration commits.
    await lookedUp;
    await store.register(key, session('o-1'), clock.now());
    release();
    assert.equal(await pending, undefined, 'what the look-up saw');
    assert.equal((await store.find(key))?.delegateReferenceId, 'o-1');
  });
});
