/** The console's sign-in rules (docs/operations.md#console), on instants given by the test. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isOperatorName,
  linkRefusal,
  sessionEnd,
  SESSION_ABSOLUTE_LIMIT_MS,
  SESSION_IDLE_LIMIT_MS,
} from '../../src/domain/console-session.js';

const T0 = new Date('2026-03-01T12:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('console sign-in rules', () => {
  it('a link opens a session until it expires, and only while unused', () => {
    const link = { operator: 'alice', expiresAt: at(300_000), usedAt: null };
    assert.equal(linkRefusal(link, T0), undefined);
    assert.equal(linkRefusal(link, at(299_999)), undefined);
    assert.equal(linkRefusal(link, at(300_000)), 'expired');
    assert.equal(linkRefusal({ ...link, usedAt: at(1) }, at(2)), 'used');
    assert.equal(linkRefusal(undefined, T0), 'unknown');
  });

  it('a session ends 15 minutes after its last use, and 8 hours after sign-in', () => {
    const session = { operator: 'alice', createdAt: T0, lastSeenAt: T0 };
    assert.equal(sessionEnd(session, at(SESSION_IDLE_LIMIT_MS - 1)), undefined);
    assert.equal(sessionEnd(session, at(SESSION_IDLE_LIMIT_MS)), 'idle');
    const busy = { ...session, lastSeenAt: at(SESSION_ABSOLUTE_LIMIT_MS - 1000) };
    assert.equal(sessionEnd(busy, at(SESSION_ABSOLUTE_LIMIT_MS - 1)), undefined);
    assert.equal(sessionEnd(busy, at(SESSION_ABSOLUTE_LIMIT_MS)), 'expired', 'however recent the last use');
    assert.equal(sessionEnd(undefined, T0), 'unknown');
    assert.equal(SESSION_IDLE_LIMIT_MS, 15 * 60 * 1000);
    assert.equal(SESSION_ABSOLUTE_LIMIT_MS, 8 * 60 * 60 * 1000);
  });

  it('an operator name is what the audit log can name', () => {
    for (const name of ['alice', 'a.b-c_d', 'ops@bank.example', '7']) assert.ok(isOperatorName(name), name);
    for (const name of ['', '-alice', 'alice smith', 'a'.repeat(65), 'alice\n', 'ålice'])
      assert.ok(!isOperatorName(name), JSON.stringify(name));
  });
});
