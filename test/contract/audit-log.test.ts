/**
 * Contract of the audit log store and of the association store's administration
 * methods, on every storage backend (embedded PGlite and a real PostgreSQL server):
 * what is appended comes back newest first through each filter, the table refuses
 * UPDATE, DELETE and TRUNCATE whoever asks, and listing associations never reads a
 * delegate reference ID.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import type { Database } from '../../src/adapters/store/database.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { SqlAssociationStore } from '../../src/adapters/store/sql-association-store.js';
import { SqlAuditLog } from '../../src/adapters/store/sql-audit-log.js';
import type { AuditEvent } from '../../src/ports/audit-log.js';
import { BACKENDS, type Backend, type OpenBackend } from '../support/backends.js';

const T0 = new Date('2026-03-01T12:00:00.123Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function event(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    type: 'accounts.listed',
    outcome: 'success',
    reason: null,
    actor: 'client',
    clientId: 'cg_contract',
    platform: 'contract',
    customerId: 'cust-1',
    requestId: 'req-1',
    occurredAt: T0,
    ...overrides,
  };
}

function migratedDatabase(backend: Backend) {
  const state = {} as { opened: OpenBackend; db: Database };
  before(async () => {
    state.opened = await backend.open();
    state.db = state.opened.database;
    await migrate(state.db);
  });
  after(() => state.opened?.close());
  return state;
}

function auditContract(backend: Backend): void {
  // One database for both groups: they use disjoint platforms.
  const state = migratedDatabase(backend);

  describe('SqlAuditLog', () => {
    let log: SqlAuditLog;
    before(() => {
      log = new SqlAuditLog(state.db);
    });

    it('stores every field of an event, nulls included, and gives it an id', async () => {
      const full = event({
        type: 'token.denied',
        outcome: 'failure',
        reason: 'invalid_client',
        platform: 'fields',
        customerId: null,
        requestId: 'req-f',
      });
      const bare = event({
        type: 'session.revoked',
        actor: 'operator',
        clientId: null,
        platform: 'fields',
        customerId: 'c-9',
        requestId: null,
        occurredAt: at(1),
      });
      await log.record(full);
      await log.record(bare);
      const [second, first] = await log.list({ platform: 'fields', limit: 10 });
      assert.ok(first && second);
      const { id: firstId, ...firstEvent } = first;
      const { id: secondId, ...secondEvent } = second;
      assert.deepEqual(firstEvent, full);
      assert.deepEqual(secondEvent, bare);
      assert.match(firstId, /^\d+$/);
      assert.ok(BigInt(secondId) > BigInt(firstId), 'ids increase with every append');
    });

    it('stores the count and source address of an aggregated row', async () => {
      const aggregated = event({
        type: 'access.denied',
        outcome: 'failure',
        reason: 'invalid_token',
        clientId: null,
        platform: null,
        customerId: null,
        requestId: null,
        count: 2000,
        sourceIp: '198.51.100.9',
        occurredAt: at(2),
      });
      await log.record(aggregated);
      const [stored] = await log.list({ type: 'access.denied', since: at(2), until: at(3), limit: 10 });
      assert.ok(stored);
      const { id: _id, ...storedEvent } = stored;
      assert.deepEqual(storedEvent, aggregated);
    });

    it('stores values that need quoting inside a batch exactly (commas, quotes, braces, backslashes, the word NULL)', async () => {
      // A batch is one statement with one array per column: the array encoding must not bend a value.
      const awkward = ['a,b', 'say "hi"', '{x}', 'back\\slash', 'NULL', "it's", ' padded ', 'ünïcödé'];
      const events = awkward.map((reason, i) =>
        event({ platform: 'quoting', reason, customerId: reason, requestId: `q-${i}`, occurredAt: at(40 + i) }),
      );
      await Promise.all(events.map((each) => log.record(each)));
      const stored = await log.list({ platform: 'quoting', limit: 100 });
      assert.deepEqual(stored.map(({ id: _id, ...rest }) => rest).reverse(), events);
    });

    it('group-commits concurrent records: each resolves once its row is stored, none lost', async () => {
      const events = Array.from({ length: 1200 }, (_, i) =>
        event({ platform: 'batch', customerId: `c-${i}`, requestId: `req-${i}` }),
      );
      await Promise.all(events.map((each) => log.record(each)));
      const stored = await log.list({ platform: 'batch', limit: 5000 });
      assert.equal(stored.length, 1200);
      assert.deepEqual(new Set(stored.map((row) => row.customerId)), new Set(events.map((each) => each.customerId)));
    });

    it('rejects the records of a failed batch, and writes the next batch', async () => {
      const failing = log.record(
        event({ platform: 'batch-fail', type: 'no.such.type' as never, outcome: 'nonsense' as never }),
      );
      await assert.rejects(failing);
      await log.record(event({ platform: 'batch-fail' }));
      assert.equal((await log.list({ platform: 'batch-fail', limit: 10 })).length, 1);
    });

    it('lists newest first, ties in time by append order, and honours the limit', async () => {
      const platform = 'order';
      await log.record(event({ platform, requestId: 'r-2', occurredAt: at(20) }));
      await log.record(event({ platform, requestId: 'r-1', occurredAt: at(10) }));
      await log.record(event({ platform, requestId: 'r-3a', occurredAt: at(30) }));
      await log.record(event({ platform, requestId: 'r-3b', occurredAt: at(30) }));
      const all = await log.list({ platform, limit: 100 });
      assert.deepEqual(
        all.map((record) => record.requestId),
        ['r-3b', 'r-3a', 'r-2', 'r-1'],
      );
      const two = await log.list({ platform, limit: 2 });
      assert.deepEqual(
        two.map((record) => record.requestId),
        ['r-3b', 'r-3a'],
      );
    });

    it('filters by platform, by customer, by time (inclusive), and by all at once', async () => {
      await log.record(event({ platform: 'alpha', customerId: 'shared', requestId: 'a-old', occurredAt: at(100) }));
      await log.record(event({ platform: 'alpha', customerId: 'shared', requestId: 'a-new', occurredAt: at(200) }));
      await log.record(event({ platform: 'alpha', customerId: 'other', requestId: 'a-other', occurredAt: at(200) }));
      await log.record(event({ platform: 'beta', customerId: 'shared', requestId: 'b-new', occurredAt: at(300) }));
      const ids = (records: { requestId: string | null }[]) => records.map((record) => record.requestId);

      assert.deepEqual(ids(await log.list({ platform: 'alpha', limit: 10 })), ['a-other', 'a-new', 'a-old']);
      assert.deepEqual(ids(await log.list({ customerId: 'shared', limit: 10 })), ['b-new', 'a-new', 'a-old']);
      assert.deepEqual(ids(await log.list({ platform: 'alpha', customerId: 'shared', limit: 10 })), ['a-new', 'a-old']);
      assert.deepEqual(ids(await log.list({ customerId: 'shared', since: at(200), limit: 10 })), ['b-new', 'a-new']);
      assert.deepEqual(ids(await log.list({ platform: 'alpha', customerId: 'shared', since: at(200), limit: 10 })), [
        'a-new',
      ]);
      assert.deepEqual(ids(await log.list({ platform: 'beta', since: at(301), limit: 10 })), []);
      assert.deepEqual(ids(await log.list({ platform: 'nobody', limit: 10 })), []);
      const unfiltered = await log.list({ since: at(300), limit: 10 });
      assert.deepEqual(ids(unfiltered), ['b-new']);
    });

    it('refuses UPDATE, DELETE and TRUNCATE of the audit table, and keeps the rows', async () => {
      await log.record(event({ platform: 'immutable', requestId: 'keep-me' }));
      const before = await state.db.query<{ n: number }>('select count(*)::int as n from audit_log');
      await assert.rejects(
        state.db.query(`update audit_log set reason = 'tampered' where platform = 'immutable'`),
        /append-only/,
      );
      await assert.rejects(state.db.query(`update audit_log set reason = 'tampered'`), /append-only/);
      await assert.rejects(state.db.query(`delete from audit_log where platform = 'immutable'`), /append-only/);
      await assert.rejects(state.db.query('delete from audit_log'), /append-only/);
      await assert.rejects(state.db.query('truncate audit_log'), /append-only/);
      // Not even inside a transaction that would otherwise commit.
      await assert.rejects(
        state.db.transaction(async (tx) => {
          await tx.query('delete from audit_log');
        }),
        /append-only/,
      );
      const afterwards = await state.db.query<{ n: number }>('select count(*)::int as n from audit_log');
      assert.equal(Number(afterwards[0]!.n), Number(before[0]!.n));
      const [kept] = await log.list({ platform: 'immutable', limit: 1 });
      assert.equal(kept?.requestId, 'keep-me');
      assert.equal(kept?.reason, null);
    });

    it('has an index for each filter of `audit list`', async () => {
      const rows = await state.db.query<{ indexdef: string }>(
        `select indexdef from pg_indexes where tablename = 'audit_log'`,
      );
      const definitions = rows.map((row) => row.indexdef.replace(/\s+/g, ' '));
      for (const columns of ['(occurred_at, id)', '(platform, occurred_at, id)', '(customer_id, occurred_at, id)']) {
        assert.ok(
          definitions.some((definition) => definition.endsWith(columns)),
          `an index on ${columns}: ${definitions.join('; ')}`,
        );
      }
    });
  });

  describe('SqlAssociationStore administration', () => {
    let store: SqlAssociationStore;
    const session = (customerKey: string, delegate = `DRI-${randomBytes(8).toString('hex')}`) => ({
      customerKey,
      delegateReferenceId: delegate,
      expiresAt: at(900),
    });
    before(() => {
      store = new SqlAssociationStore(state.db, new AesGcmSealer([encryptionKey(randomBytes(32))]));
    });

    it("lists a platform's associations by customerId without any delegate reference ID", async () => {
      await store.register({ institution: 'default', platform: 'p-list', customerId: 'zed' }, session('C-3'), T0);
      await store.register({ institution: 'default', platform: 'p-list', customerId: 'amy' }, session('C-1'), at(5));
      await store.register({ institution: 'default', platform: 'p-list', customerId: 'bob' }, session('C-2'), at(7));
      await store.register({ institution: 'default', platform: 'p-other', customerId: 'amy' }, session('C-9'), T0);
      await store.markNeedsReregistration({ institution: 'default', platform: 'p-list', customerId: 'bob' }, 1, at(8));

      const listed = await store.listByPlatform('p-list', 10);
      assert.deepEqual(listed, [
        {
          institution: 'default',
          platform: 'p-list',
          customerId: 'amy',
          customerKey: 'C-1',
          expiresAt: at(900),
          needsReregistration: false,
          createdAt: at(5),
          updatedAt: at(5),
        },
        {
          institution: 'default',
          platform: 'p-list',
          customerId: 'bob',
          customerKey: 'C-2',
          expiresAt: at(900),
          needsReregistration: true,
          createdAt: at(7),
          updatedAt: at(8),
        },
        {
          institution: 'default',
          platform: 'p-list',
          customerId: 'zed',
          customerKey: 'C-3',
          expiresAt: at(900),
          needsReregistration: false,
          createdAt: T0,
          updatedAt: T0,
        },
      ]);
      assert.deepEqual(
        (await store.listByPlatform('p-list', 2)).map((summary) => summary.customerId),
        ['amy', 'bob'],
      );
      assert.deepEqual(await store.listByPlatform('p-nobody', 10), []);
    });

    it("deletes one platform's association only, once", async () => {
      await store.register({ institution: 'default', platform: 'p-del', customerId: 'gone' }, session('C-1'), T0);
      await store.register({ institution: 'default', platform: 'p-del2', customerId: 'gone' }, session('C-1'), T0);
      assert.equal(await store.delete({ institution: 'default', platform: 'p-del', customerId: 'gone' }), true);
      assert.equal(await store.find({ institution: 'default', platform: 'p-del', customerId: 'gone' }), undefined);
      assert.equal(await store.delete({ institution: 'default', platform: 'p-del', customerId: 'gone' }), false);
      assert.equal(
        (await store.find({ institution: 'default', platform: 'p-del2', customerId: 'gone' }))?.customerKey,
        'C-1',
        "another platform's customerId is untouched",
      );
      // Registered again afterwards: a fresh association.
      const again = await store.register(
        { institution: 'default', platform: 'p-del', customerId: 'gone' },
        session('C-2'),
        at(60),
      );
      assert.equal(again.outcome, 'registered');
      assert.equal(
        (await store.find({ institution: 'default', platform: 'p-del', customerId: 'gone' }))?.customerKey,
        'C-2',
      );
    });
  });
}

for (const backend of BACKENDS) {
  describe(`audit log contract (${backend.name})`, { skip: backend.skip }, () => auditContract(backend));
}
