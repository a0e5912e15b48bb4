/** `coregate audit list` input rules: ISO-8601 instants with a zone, a bounded limit, newest first by default 100. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditReader, DEFAULT_AUDIT_LIMIT, parseInstant } from '../../src/app/read-audit-log.js';
import { ApiError } from '../../src/domain/errors.js';

const isInvalidRequest = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.code === 'invalid_request';
import type { AuditLog, AuditQuery } from '../../src/ports/audit-log.js';

describe('parseInstant', () => {
  it('takes dates (midnight UTC) and date-times with Z or an offset', () => {
    assert.equal(parseInstant('2026-03-01')?.toISOString(), '2026-03-01T00:00:00.000Z');
    assert.equal(parseInstant('2026-03-01T12:30Z')?.toISOString(), '2026-03-01T12:30:00.000Z');
    assert.equal(parseInstant('2026-03-01T12:30:15.250Z')?.toISOString(), '2026-03-01T12:30:15.250Z');
    assert.equal(parseInstant('2026-03-01T14:30:00+02:00')?.toISOString(), '2026-03-01T12:30:00.000Z');
    assert.equal(parseInstant(' 2024-02-29 ')?.toISOString(), '2024-02-29T00:00:00.000Z');
  });

  it('refuses anything else, a date-time without a zone included', () => {
    for (const text of [
      '',
      'yesterday',
      '2026-03-01T12:00',
      '2026-03-01 12:00:00Z',
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '2026-03-01T25:00Z',
      '1741000000',
      '03/01/2026',
    ]) {
      assert.equal(parseInstant(text), undefined, text);
    }
  });
});

describe('AuditReader', () => {
  const queries: AuditQuery[] = [];
  const log: AuditLog = {
    record: async () => {},
    list: async (query) => (queries.push(query), []),
  };
  const reader = new AuditReader(log);

  it('passes the filters on, with the default limit', async () => {
    await reader.list({ platform: 'p', customerId: 'c', since: '2026-03-01' });
    assert.deepEqual(queries.at(-1), {
      platform: 'p',
      customerId: 'c',
      since: new Date('2026-03-01T00:00:00Z'),
      limit: DEFAULT_AUDIT_LIMIT,
    });
    await reader.list({ limit: 10_000 });
    assert.deepEqual(queries.at(-1), { platform: undefined, customerId: undefined, since: undefined, limit: 10_000 });
  });

  it('passes --type and --until on, and refuses an unknown type or a bad --until', async () => {
    await reader.list({ type: 'client.created', until: '2026-03-02' });
    assert.deepEqual(queries.at(-1), {
      platform: undefined,
      customerId: undefined,
      since: undefined,
      until: new Date('2026-03-02T00:00:00Z'),
      type: 'client.created',
      limit: DEFAULT_AUDIT_LIMIT,
    });
    await assert.rejects(reader.list({ type: 'client.exploded', until: 'tomorrow' }), (error: unknown) => {
      assert.ok(isInvalidRequest(error));
      assert.deepEqual(
        (error.data['errors'] as Array<{ path: string }>).map((problem) => problem.path),
        ['until', 'type'],
      );
      return true;
    });
  });

  it('refuses a bad --since or --limit, naming each', async () => {
    const count = queries.length;
    await assert.rejects(reader.list({ since: '2026-03-01T12:00', limit: 0 }), (error: unknown) => {
      assert.ok(isInvalidRequest(error));
      assert.deepEqual(
        (error.data['errors'] as Array<{ path: string }>).map((problem) => problem.path),
        ['since', 'limit'],
      );
      return true;
    });
    for (const limit of [10_001, 1.5, Number.NaN, -1])
      await assert.rejects(reader.list({ limit }), isInvalidRequest, String(limit));
    assert.equal(queries.length, count, 'nothing was queried');
  });
});
