/**
 * One error vocabulary (docs/errors.md): a refused gateway request carries the same
 * code in its answer (`data.reason`), on its log line (`code`) and in its audit
 * row (`reason`); and the envelope's name, className and status are the ones the
 * code's row of the table names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createLogger } from '../../../src/adapters/logging/logger.js';
import { ENVELOPE_KINDS, ERROR_CODES, type ErrorCode } from '../../../src/domain/errors.js';
import { pgliteBackend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { rowsOf } from '../audit/audit-rows.js';
import { ADA, BOB, formA, formB, getAccounts, postSession, uniqueId } from '../gateway/gateway-requests.js';

describe('one error code in the answer, the log line and the audit row', () => {
  let h: Harness;
  const lines: string[] = [];
  before(async () => {
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    h = await createHarness(pgliteBackend, { logger, env: { LOG_LEVEL: 'info' } });
  });
  after(() => h?.close());

  /** The log lines of the request that got `response`. */
  function linesOf(response: LightMyRequestResponse): Record<string, unknown>[] {
    const id = response.headers['x-request-id'];
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['reqId'] === id);
  }

  async function assertOneCode(response: LightMyRequestResponse, code: ErrorCode, why: string): Promise<void> {
    const body = response.json<{ name: string; className: string; code: number; data: { reason: string } }>();
    const kind = ENVELOPE_KINDS[ERROR_CODES[code].envelope];
    assert.deepEqual(
      { status: response.statusCode, name: body.name, className: body.className, code: body.code },
      { status: kind.status, name: ERROR_CODES[code].envelope, className: kind.className, code: kind.status },
      `${why}: the envelope of the code's row`,
    );
    assert.equal(body.data.reason, code, `${why}: data.reason`);
    const refused = linesOf(response).filter(
      (line) => line['msg'] === 'request refused' || line['msg'] === 'upstream failure',
    );
    assert.deepEqual(
      refused.map((line) => line['code']),
      [code],
      `${why}: the log line`,
    );
    await h.services.audit.drain();
    const rows = await rowsOf(h, response);
    assert.deepEqual(
      rows.map((row) => row.reason),
      [code],
      `${why}: the audit row`,
    );
  }

  it('for a refused registration, an unknown customer and a conflict', async () => {
    const token = await h.token(await h.client({ platform: 'one-code' }));
    const customerId = uniqueId('one-code');

    await assertOneCode(
      await postSession(h, { token }, { registration: { customerId } }),
      'invalid_request',
      'invalid body',
    );
    await assertOneCode(
      await postSession(h, { token }, formB(uniqueId('one-code-unknown'), 'C-404')),
      'customer_not_recognised',
      'core does not know the customer',
    );
    await assertOneCode(await getAccounts(h, { token }, customerId), 'customer_not_registered', 'not registered');

    assert.equal((await postSession(h, { token }, formA(customerId, ADA))).statusCode, 200);
    await assertOneCode(
      await postSession(h, { token }, formA(customerId, BOB)),
      'customer_id_taken',
      'another core customer',
    );
  });
});
