/**
 * How PostgreSQL reads an association: through its primary key, by a condition on all
 * three columns, even on a table that was never analysed (PGlite never analyses on its
 * own, and a server may run with autovacuum off, or be in the first minute of a bulk
 * onboarding). An index that shares the primary key's leading columns made the planner
 * scan a whole platform's rows for every registration and cache miss.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import type { Database } from '../../src/adapters/store/database.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { SqlAssociationStore } from '../../src/adapters/store/sql-association-store.js';
import { BACKENDS, type OpenBackend } from '../support/backends.js';

/** Rows of one platform: enough that a scan of the platform is not a tie with a key lookup. */
const ROWS = 5_000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** Records the text and parameters of every statement the store sends. */
function recording(db: Database): { db: Database; statements: { text: string; params: readonly unknown[] }[] } {
  const statements: { text: string; params: readonly unknown[] }[] = [];
  const recorder = Object.create(db) as Database;
  recorder.query = <Row>(text: string, params: readonly unknown[] = []) => {
    statements.push({ text, params });
    return db.query<Row>(text, params);
  };
  return { db: recorder, statements };
}

for (const backend of BACKENDS) {
  describe(`association lookups (${backend.name})`, { skip: backend.skip }, () => {
    let open: OpenBackend;

    before(async () => {
      open = await backend.open();
      await migrate(open.database);
      await open.database.query(
        `insert into associations (institution, platform, customer_id, customer_key, delegate_sealed, delegate_key_id, expires_at, created_at, updated_at)
         select 'default', 'bulk', 'customer-' || n, 'C-' || n, 'sealed', 'k', now(), now(), now() from generate_series(1, ${ROWS}) as n`,
      );
    });

    after(() => open?.close());

    it('finds one customer through the primary key, on a table never analysed', async () => {
      const { db, statements } = recording(open.database);
      const store = new SqlAssociationStore(db, new AesGcmSealer([encryptionKey(randomBytes(32))]));
      // A customerId not yet registered: what every registration asks first.
      assert.equal(
        await store.find({ institution: 'default', platform: 'bulk', customerId: 'customer-new' }),
        undefined,
      );
      const [lookup] = statements;
      assert.ok(lookup);
      const [explained] = await open.database.query<{ 'QUERY PLAN': unknown }>(
        `explain (format json) ${lookup.text}`,
        lookup.params,
      );
      const rawPlan = explained!['QUERY PLAN'];
      const plan = (typeof rawPlan === 'string' ? JSON.parse(rawPlan) : rawPlan) as [{ Plan: PlanNode }];
      const scans = nodes(plan[0].Plan).filter((node) => node['Index Name'] !== undefined);
      assert.equal(scans.length, 1, JSON.stringify(plan));
      assert.equal(scans[0]!['Index Name'], 'associations_pkey', JSON.stringify(plan));
      assert.match(scans[0]!['Index Cond'] ?? '', /customer_id/, JSON.stringify(plan));
    });

    it('answers a registration with the association as stored, created or refreshed, without reading it back', async () => {
      const store = new SqlAssociationStore(open.database, new AesGcmSealer([encryptionKey(randomBytes(32))]));
      const key = { institution: 'default', platform: 'bulk', customerId: 'customer-answered' };
      const first = new Date('2026-01-02T03:04:05.678Z');
      const session = (id: string, at: Date) => ({
        customerKey: 'C-answered',
        delegateReferenceId: id,
        expiresAt: new Date(at.getTime() + 900_000),
      });
      const created = await store.register(key, session('delegate-1', first), first);
      assert.equal(created.outcome, 'registered');
      assert.deepEqual(created.association, await store.find(key));
      const later = new Date(first.getTime() + 60_000);
      const refreshed = await store.register(key, session('delegate-2', later), later);
      assert.equal(refreshed.outcome, 'registered');
      const stored = await store.find(key);
      assert.deepEqual(refreshed.association, stored);
      assert.deepEqual(
        [stored!.version, stored!.createdAt, stored!.updatedAt, stored!.delegateReferenceId],
        [2, first, later, 'delegate-2'],
      );
    });
  });
}
