/**
 * The one table of error codes (domain/errors.ts, docs/errors.md): the envelopes are
 * exactly the FeathersJS names, classNames and statuses the gateway promises; the
 * OAuth answers use only RFC 6749 §5.2's codes (and the two of §4.1.2.1 for 5xx), and RFC
 * 9449 §5's `invalid_dpop_proof` for a request that sent a DPoP proof;
 * a code told as another is told as a code of the same status.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, ENVELOPE_KINDS, ERROR_CODES, type ErrorCode } from '../../src/domain/errors.js';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

describe('the error code table', () => {
  it('has the envelopes of the gateway, each with its className and status', () => {
    assert.deepEqual(
      Object.entries(ENVELOPE_KINDS).map(([name, { className, status }]) => `${name} ${className} ${status}`),
      [
        'BadRequest bad-request 400',
        'NotAuthenticated not-authenticated 401',
        'Forbidden forbidden 403',
        'NotFound not-found 404',
        'MethodNotAllowed method-not-allowed 405',
        'Conflict conflict 409',
        'PayloadTooLarge payload-too-large 413',
        'Unprocessable unprocessable 422',
        'TooManyRequests too-many-requests 429',
        'GeneralError general-error 500',
        'NotImplemented not-implemented 501',
        'BadGateway bad-gateway 502',
        'Unavailable unavailable 503',
      ],
    );
  });

  it('names every code in snake case, and a code told as another is told as one of the same status', () => {
    for (const code of CODES) {
      assert.match(code, /^[a-z][a-z_]{1,63}$/, code);
      const told: string | undefined = (ERROR_CODES[code] as { told?: string }).told;
      if (told === undefined) continue;
      assert.ok(told in ERROR_CODES, `${code} is told as a code`);
      assert.equal(
        new ApiError(told as ErrorCode, 'x').status,
        new ApiError(code, 'x').status,
        `${code} told as ${told}`,
      );
    }
  });

  it('answers the OAuth endpoints only with RFC 6749 codes (and RFC 9449 for a DPoP proof): 400, or the 405, 429, 500 and 503 of what is not a refusal of the request', () => {
    const rfc6749 = new Set([
      'invalid_request',
      'invalid_client',
      'invalid_grant',
      'unauthorized_client',
      'unsupported_grant_type',
      'invalid_dpop_proof',
    ]);
    for (const code of CODES) {
      const { error, status } = ERROR_CODES[code].oauth;
      if (status === 400) assert.ok(rfc6749.has(error), `${code}: ${error}`);
      else
        assert.deepEqual(
          [code, error, status],
          {
            method_not_allowed: [code, 'invalid_request', 405],
            rate_limited: [code, 'invalid_request', 429],
            internal_error: [code, 'server_error', 500],
            core_failed: [code, 'server_error', 500],
            not_supported_by_core: [code, 'server_error', 500],
            unavailable: [code, 'temporarily_unavailable', 503],
          }[code as string],
          code,
        );
    }
    // Each OAuth code is its own code, answered as itself.
    for (const code of rfc6749) assert.equal(ERROR_CODES[code as ErrorCode].oauth.error, code);
  });

  it('builds an error whose answer is its row: data.reason the code, or what the row says it is told', () => {
    const error = new ApiError('customer_not_registered', 'no registered customer with this customerId');
    assert.deepEqual(
      [error.name, error.className, error.status, error.reason],
      ['NotFound', 'not-found', 404, 'customer_not_registered'],
    );
    const disabled = new ApiError('client_disabled', 'invalid or expired access token');
    assert.deepEqual([disabled.code, disabled.reason, disabled.status], ['client_disabled', 'invalid_token', 401]);
  });
});
