/**
 * The Fineract connector over a real socket against answers drawn at random (fast-check): any
 * answer Fineract could send, well-formed or not, ends in records, a session, "not recognised"
 * or a typed core failure — never an unexpected exception — and no failure message repeats a value
 * of the answer.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { FineractCoreConnector } from '../../src/adapters/core/fineract/fineract-core-connector.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { FINERACT_DEFAULTS } from '../../src/domain/institution.js';
import { CoreError, CustomerNotRecognised } from '../../src/ports/core-connector.js';
import { FakeClock } from '../support/fake-clock.js';

/** A marker that must never reach an error message: every string of a drawn answer contains it. */
const MARK = 'Zq7';
const marked = fc.string({ maxLength: 6 }).map((text) => `${MARK}${text}`);
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    marked,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: -3, max: 3000 }),
    fc.boolean(),
    fc.constant(null),
    fc.constant([2026, 2, 3]),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom(
        'summary',
        'accountBalance',
        'timeline',
        'activatedOnDate',
        'submittedOnDate',
        'transactions',
        'date',
        'amount',
        'id',
        'active',
        'dateOfBirth',
        'status',
        'nominalAnnualInterestRate',
        'depositType',
        'accountNo',
      ),
      tie('value'),
      { maxKeys: 6 },
    ),
  ),
})).value;

/** A savings answer with one field replaced by a drawn value: near misses of the real shape. */
const nearSavings = fc
  .tuple(
    fc.constantFrom(
      'summary',
      'timeline',
      'nominalAnnualInterestRate',
      'transactions',
      'allowOverdraft',
      'externalId',
      'clientId',
    ),
    json,
  )
  .map(([field, value]) => ({
    id: 11,
    clientId: 1,
    nominalAnnualInterestRate: 1.5,
    timeline: { activatedOnDate: [2020, 1, 1] },
    summary: { accountBalance: 10 },
    transactions: [{ transactionType: { interestPosting: true }, date: [2026, 1, 31], amount: 1, reversed: false }],
    [field]: value,
  }));

describe('Fineract connector against drawn answers', () => {
  let server: Server;
  let answer: { path: RegExp; body: unknown } | undefined;
  let connector: FineractCoreConnector;

  before(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '';
      let body: unknown = { id: 1, active: true };
      if (/\/clients\/1\/accounts$/.test(path))
        body = { savingsAccounts: [{ id: 11, accountNo: 'A', status: { active: true }, depositType: { id: 100 } }] };
      if (answer?.path.test(path)) body = answer.body;
      const text = JSON.stringify(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    connector = new FineractCoreConnector({
      ...FINERACT_DEFAULTS,
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/fineract-provider`,
      credentials: { username: 'u', password: 'p' },
      institution: 'default',
      timeoutMs: 2000,
      clock: new FakeClock(),
      sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
    });
  });
  after(async () => {
    await connector.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const settle = async (call: () => Promise<unknown>): Promise<void> => {
    try {
      await call();
    } catch (error) {
      assert.ok(error instanceof CoreError, `not a core error: ${String(error)}`);
      assert.ok(!error.message.includes(MARK), `a value in the message: ${error.message}`);
    }
  };

  it('an accounts read ends in records or a core protocol error', async () => {
    const session = await connector.startSession({ kind: 'customerKey', customerKey: '1' }, { requestId: 'f' });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(json, nearSavings),
        fc.constantFrom(/\/savingsaccounts\/11/, /\/clients\/1\/accounts$/),
        async (body, path) => {
          answer = { path, body };
          await settle(async () => {
            const records = await connector.listAccounts(session.delegateReferenceId, { requestId: 'f' });
            assert.ok(Array.isArray(records));
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a registration ends in a session, not recognised, or a core protocol error', async () => {
    await fc.assert(
      fc.asyncProperty(
        json,
        fc.constantFrom(/\/v2\/clients\/search$/, /\/identifiers$/, /\/clients\/\d+$/, /\/accounts$/),
        async (body, path) => {
          answer = { path, body };
          await settle(async () => {
            try {
              await connector.startSession(
                { kind: 'demographics', socialSecurityNumber: '123456789', accountNumber: 'A', birthDay: '1980-04-12' },
                { requestId: 'f' },
              );
            } catch (error) {
              if (error instanceof CustomerNotRecognised) return;
              throw error;
            }
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
