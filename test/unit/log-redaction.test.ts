/**
 * The logs' second line of defence (`adapters/logging/redact.ts`): sensitive fields are
 * censored at the top of a line's object and two levels down, in plain objects, arrays
 * and errors; nothing else is copied or changed, and the caller's objects never are.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { CENSOR, redactSensitive, SENSITIVE_FIELDS } from '../../src/adapters/logging/redact.js';
import { createLogger } from '../../src/adapters/logging/logger.js';

describe('redactSensitive', () => {
  it('returns the very object when nothing in it is sensitive', () => {
    const line = {
      reqId: 'r1',
      req: { method: 'GET', url: '/core/accounts' },
      res: { statusCode: 200 },
      list: [1, { a: 2 }],
    };
    assert.equal(redactSensitive(line), line);
  });

  it('censors at the top, one and two levels down, and leaves the original alone', () => {
    const line = {
      client_secret: 'cgs_top',
      body: { demographics: { socialSecurityNumber: '123-45-6789' }, customerId: 'c-1' },
      req: { headers: { authorization: 'Basic abc', host: 'x' } },
      items: [{ accountNumber: '1234567890' }],
    };
    const before = structuredClone(line);
    const redacted = redactSensitive(line);
    assert.deepEqual(redacted, {
      client_secret: CENSOR,
      body: { demographics: CENSOR, customerId: 'c-1' },
      req: { headers: { authorization: CENSOR, host: 'x' } },
      items: [{ accountNumber: CENSOR }],
    });
    assert.ok(Array.isArray(redacted.items));
    assert.deepEqual(line, before, "the caller's object is unchanged");
  });

  it('does not look deeper than the old `*.*.x` paths reached', () => {
    const deep = { a: { b: { c: { token: 't' } } } };
    assert.equal(redactSensitive(deep), deep);
  });

  it('keeps an error an error, message and stack included', () => {
    const error = Object.assign(new TypeError('core said no'), { secret: 's3cr3t', code: 'E_CORE' });
    const { err } = redactSensitive({ err: error });
    assert.ok(err instanceof TypeError);
    assert.equal(err.message, 'core said no');
    assert.equal(err.stack, error.stack);
    assert.equal((err as unknown as { secret: string }).secret, CENSOR);
    assert.equal((err as unknown as { code: string }).code, 'E_CORE');
    assert.equal(error.secret, 's3cr3t', 'the thrown error is unchanged');
  });

  it('leaves objects with their own serializers (requests, buffers, maps) to them', () => {
    class Request {
      headers = { authorization: 'Bearer x' };
    }
    const line = { req: new Request(), data: Buffer.from('token') };
    assert.equal(redactSensitive(line), line);
  });

  it('never lets a sensitive value through at depth ≤ 2 (property)', () => {
    const sensitive = fc.constantFrom(...SENSITIVE_FIELDS);
    const plainKey = fc
      .string({ minLength: 1, maxLength: 8 })
      .filter((key) => !SENSITIVE_FIELDS.has(key) && key !== '__proto__');
    fc.assert(
      fc.property(plainKey, plainKey, sensitive, fc.integer({ min: 0, max: 2 }), (outer, inner, field, depth) => {
        const leaf = { [field]: 'LEAKED-VALUE' };
        const line = depth === 0 ? leaf : depth === 1 ? { [outer]: leaf } : { [outer]: { [inner]: leaf } };
        assert.doesNotMatch(JSON.stringify(redactSensitive(line)), /LEAKED-VALUE/);
      }),
    );
  });

  it('runs in the production logger, on the line and on child bindings', () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    });
    const logger = createLogger('info', stream);
    logger
      .child({ token: 'child-binding-token' })
      .info({ nested: { refresh_token: 'rt_1' }, err: Object.assign(new Error('x'), { password: 'p' }) }, 'line');
    const text = chunks.join('');
    for (const value of ['child-binding-token', 'rt_1', '"p"']) assert.ok(!text.includes(value), `${value} in ${text}`);
    assert.match(text, /"msg":"line"/);
  });
});
