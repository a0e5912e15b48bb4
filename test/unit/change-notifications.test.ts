/**
 * The payloads the database's triggers send on `coregate_changes` (migrations 8 and 9),
 * as the change feeds read them: a row change, a removed association, and nothing for
 * whatever else arrives on the channel (an operator's NOTIFY, a newer version's kind).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseChange } from '../../src/adapters/store/change-notifications.js';

describe('parseChange', () => {
  it('reads a client, an institution and a signing key by id', () => {
    assert.deepEqual(parseChange('{"kind":"client","id":"cg_abc"}'), { kind: 'client', id: 'cg_abc' });
    assert.deepEqual(parseChange('{"kind":"institution","id":"bank-a"}'), { kind: 'institution', id: 'bank-a' });
    assert.deepEqual(parseChange('{"kind":"signing_key","id":"k1"}'), { kind: 'signing_key', id: 'k1' });
  });

  it('reads a removed association by its whole key, whatever characters the customerId holds', () => {
    const payload = JSON.stringify({
      kind: 'association',
      institution: 'default',
      platform: 'acme',
      customerId: 'a"b\\c/d',
    });
    assert.deepEqual(parseChange(payload), {
      kind: 'association',
      key: { institution: 'default', platform: 'acme', customerId: 'a"b\\c/d' },
    });
  });

  it('reads a revoked access token by its jti and exp, as the trigger of migration 10 writes it', () => {
    assert.deepEqual(parseChange('{"kind":"access_token_revoked","jti":"j-1","exp":1790000000}'), {
      kind: 'access_token_revoked',
      jti: 'j-1',
      exp: 1790000000,
    });
  });

  it('ignores payloads it does not know', () => {
    for (const payload of [
      undefined,
      '',
      'not json',
      'null',
      '42',
      '"client"',
      '[]',
      '{"kind":"client"}',
      '{"kind":"client","id":7}',
      '{"kind":"association","id":"x"}',
      '{"kind":"association","institution":"default","platform":"acme"}',
      '{"kind":"association","institution":"default","platform":null,"customerId":"c"}',
      '{"kind":"feed","id":"x"}',
      '{"kind":"webhook","id":"x"}',
      '{"kind":"access_token_revoked","id":"x"}',
      '{"kind":"access_token_revoked","jti":"x","exp":"1790000000"}',
    ]) {
      assert.equal(parseChange(payload), undefined, String(payload));
    }
  });

  it('never throws, whatever arrives on the channel', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((value) => JSON.stringify(value)),
        ),
        (payload) => {
          const change = parseChange(payload);
          if (change)
            assert.ok(
              ['client', 'institution', 'signing_key', 'association', 'access_token_revoked'].includes(change.kind),
            );
        },
      ),
    );
  });
});
