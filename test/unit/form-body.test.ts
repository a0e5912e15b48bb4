import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/domain/errors.js';
import { assertFormContentType, parseForm } from '../../src/http/form-body.js';

function assertInvalidRequest(run: () => unknown): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.oauth.error, 'invalid_request');
    return true;
  });
}

describe('assertFormContentType', () => {
  const accepted = [
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded;charset=UTF-8',
    'application/x-www-form-urlencoded; charset=utf-8',
    'application/x-www-form-urlencoded ; charset="UTF-8"',
    'application/x-www-form-urlencoded; charset=us-ascii',
    'Application/X-WWW-Form-Urlencoded',
    'application/x-www-form-urlencoded;',
  ];
  for (const contentType of accepted) {
    it(`accepts "${contentType}"`, () => assert.doesNotThrow(() => assertFormContentType(contentType)));
  }

  const refused: Array<string | undefined> = [
    undefined,
    '',
    'application/json',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded-extra',
    'application/x-www-form-urlencodedx; charset=utf-8',
    'application/x-www-form-urlencoded; charset=iso-8859-1',
    'application/x-www-form-urlencoded; boundary=x',
    'application/x-www-form-urlencoded, application/json',
  ];
  for (const contentType of refused) {
    it(`refuses ${contentType === undefined ? 'a missing Content-Type' : `"${contentType}"`} with invalid_request`, () =>
      assertInvalidRequest(() => assertFormContentType(contentType)));
  }

  it('does not echo an odd parameter name back', () => {
    assert.throws(
      () => assertFormContentType('application/x-www-form-urlencoded; <script>=1'),
      (error: Error) => !error.message.includes('<script>'),
    );
  });
});

describe('parseForm', () => {
  const parsed: Array<[string, string, Record<string, string>]> = [
    ['an empty body', '', {}],
    [
      'a client_credentials request',
      'grant_type=client_credentials&scope=core%2Fmain',
      { grant_type: 'client_credentials', scope: 'core/main' },
    ],
    ['a raw "/" in a value', 'scope=core/main', { scope: 'core/main' }],
    ['"+" as a space', 'scope=core%2Fmain+other', { scope: 'core/main other' }],
    ['"%2B" as "+"', 'refresh_token=cgr_a%2Bb', { refresh_token: 'cgr_a+b' }],
    ['"%20" as a space', 'scope=a%20b', { scope: 'a b' }],
    ['percent-encoded UTF-8', 'name=caf%C3%A9', { name: 'café' }],
    ['an empty value as absent', 'grant_type=client_credentials&scope=', { grant_type: 'client_credentials' }],
    ['a name without "=" as absent', 'grant_type=client_credentials&scope', { grant_type: 'client_credentials' }],
    ['empty pairs ("&&")', '&grant_type=client_credentials&&', { grant_type: 'client_credentials' }],
    ['"=" inside a value', 'refresh_token=a=b', { refresh_token: 'a=b' }],
    // The WHATWG form decoder never fails: a malformed escape stays literal and bytes that are not
    // UTF-8 become U+FFFD, so such a value can never equal a real scope, grant or token.
    ['a bad %-escape kept literally', 'scope=%ZZcore&refresh_token=abc%', { scope: '%ZZcore', refresh_token: 'abc%' }],
    ['a non-UTF-8 %-escape replaced by U+FFFD', 'refresh_token=cgr_%FFx', { refresh_token: 'cgr_\uFFFDx' }],
  ];
  for (const [label, body, expected] of parsed) {
    it(`reads ${label}`, () => assert.deepEqual(Object.fromEntries(parseForm(body)), expected));
  }

  const refused: Array<[string, string]> = [
    ['a repeated parameter', 'grant_type=client_credentials&grant_type=client_credentials'],
    ['a repeated parameter with another value', 'scope=core%2Fmain&scope=other'],
    ['a repeated parameter once empty', 'scope=&scope=core%2Fmain'],
    ['a repeated parameter spelled with an escape', 'grant_type=a&grant%5Ftype=b'],
  ];
  for (const [label, body] of refused) {
    it(`refuses ${label} with invalid_request`, () => assertInvalidRequest(() => parseForm(body)));
  }

  it('names an OAuth parameter given twice, but does not echo arbitrary names', () => {
    assert.throws(() => parseForm('scope=a&scope=b'), /"scope"/);
    assert.throws(
      () => parseForm('%3Cscript%3E=a&%3Cscript%3E=b'),
      (error: Error) => !error.message.includes('<script>'),
    );
  });
});
