/** Duplicate member names found in JSON text, with the path to the second one. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstDuplicateKey } from '../../src/domain/json-duplicate-keys.js';

describe('firstDuplicateKey', () => {
  it('finds a repeated name in the same object, at any depth, and in arrays of objects', () => {
    assert.deepEqual(firstDuplicateKey('{"a":1,"a":2}'), ['a']);
    assert.deepEqual(firstDuplicateKey('{"x":{"y":[1,{"b":"}","b":2}]}}'), ['x', 'y', 1, 'b']);
    assert.deepEqual(firstDuplicateKey('[{},{"k":"v","k":"w"}]'), [1, 'k']);
    assert.deepEqual(firstDuplicateKey('{"a":1,"\\u0061":2}'), ['a'], 'compared after unescaping');
    assert.deepEqual(firstDuplicateKey('{"q\\"":1, "q\\"" :2}'), ['q"']);
  });

  it('finds nothing where names repeat only across objects or inside strings', () => {
    for (const text of [
      '{"a":{"a":1},"b":{"a":2}}',
      '{"a":"\\"a\\":1,\\"a\\":2"}',
      '[{"a":1},{"a":2}]',
      '{"a":[1,2,{"a":3}]}',
      '"a"',
      '12',
      '{}',
    ])
      assert.equal(firstDuplicateKey(text), undefined, text);
  });
});
