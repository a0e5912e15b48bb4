/** Duplicate member names found in JSON text, with the path to the second one; long integers found beside them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstDuplicateKey, scanJsonText } from '../../src/domain/json-duplicate-keys.js';

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

describe('scanJsonText', () => {
  const REPEATS = [
    '{"a":1,"a":2}',
    '{"x":{"y":[1,{"b":"}","b":2}]}}',
    '[{},{"k":"v","k":"w"}]',
    '{"a":1,"\\u0061":2}',
    '{"q\\"":1, "q\\"" :2}',
    '{"a":{"b":1},"a":1}',
  ];
  const UNIQUE = [
    '{"a":{"a":1},"b":{"a":2}}',
    '{"a":"\\"a\\":1,\\"a\\":2"}',
    '[{"a":1},{"a":2}]',
    '{"a":[1,2,{"a":3}]}',
    '"a"',
    '12',
    '{}',
  ];

  it('finds the same duplicate names firstDuplicateKey finds, and none where it finds none', () => {
    for (const text of REPEATS) {
      assert.notEqual(firstDuplicateKey(text), undefined, text);
      assert.equal(scanJsonText(text).duplicateKey, true, text);
    }
    for (const text of UNIQUE) assert.equal(scanJsonText(text).duplicateKey, false, text);
  });

  it('flags an integer of more than 15 digits, outside strings, and no fraction, exponent or shorter integer', () => {
    for (const text of ['{"id":9007199254740993}', '[1,-1234567890123456]', '{"a":{"b":[12345678901234567890]}}'])
      assert.equal(scanJsonText(text).longInteger, true, text);
    for (const text of [
      '{"id":900719925474099}',
      '{"amount":1234567890123456.5}',
      '{"x":1234567890123456e2}',
      '{"x":12345678901234567E-3}',
      '{"id":"9007199254740993"}',
      '{"9007199254740993":1}',
      '[-0.12345678901234567,1e300]',
    ])
      assert.equal(scanJsonText(text).longInteger, false, text);
  });
});
