/**
 * The gateway with the Fineract connector as its core, over a real socket to the Fineract
 * stand-in (docs/cores/fineract.md#failures): registration and accounts; a service user
 * Fineract refuses is a 502 naming it in the log, with no renewal; a client gone from
 * Fineract is a renewal that ends in `reregistration_required`; Fineract shedding load
 * is a 503 with `Retry-After`. No SSN, account number or birth date in any log line.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { FineractCoreConnector } from '../../../src/adapters/core/fineract/fineract-core-connector.js';
import {
  startFineractStandIn,
  type RunningFineractStandIn,
} from '../../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import { DEMO_CLIENTS } from '../../../src/fakes/fineract-stand-in/stand-in-data.js';
import { AesGcmSealer } from '../../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../../src/adapters/crypto/encryption-keys.js';
import { FINERACT_DEFAULTS } from '../../../src/domain/institution.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  ADA,
  assertError,
  assertSuccess,
  associationRow,
  BAD_GATEWAY,
  BAD_REQUEST,
  FollowingClock,
  formA,
  getAccounts,
  NOT_AUTHENTICATED,
  postSession,
  uniqueId,
  UNAVAILABLE,
} from './gateway-requests.js';

const PERSONAL = ['123-45-6789', '123456789', '70001234', '1980-04-12'];

for (const backend of BACKENDS) {
  describe(`gateway with the Fineract connector (${backend.name})`, { skip: backend.skip, timeout: 30_000 }, () => {
    let h: Harness;
    let standIn: RunningFineractStandIn;
    let token: string;
    let platform: string;
    const lines: string[] = [];
    const clock = new FollowingClock();

    before(async () => {
      standIn = await startFineractStandIn();
      const core = new FineractCoreConnector({
        ...FINERACT_DEFAULTS,
        baseUrl: standIn.url,
        credentials: standIn.credentials,
        institution: 'default',
        timeoutMs: 1000,
        clock,
        sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
      });
      h = await createHarness(backend, {
        core,
        logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
        env: { COREGATE_CORE_BREAKER_FAILURES: '0' },
      });
      clock.target = h.clock;
      const client = await h.client({ platform: 'fineract' });
      platform = client.platform;
      token = await h.token(client);
    });
    after(async () => {
      await h?.close();
      await standIn?.close();
      for (const line of lines) for (const value of PERSONAL) assert.ok(!line.includes(value), `log: ${line}`);
    });
    beforeEach(() => {
      standIn.setFaults({});
      for (const client of DEMO_CLIENTS) standIn.setClient(client.id, client);
    });

    it('registers by demographics and reads the accounts from Fineract', async () => {
      const customerId = uniqueId('fineract');
      const data = assertSuccess<{ customerKey: string }>(await postSession(h, { token }, formA(customerId, ADA)));
      assert.equal(data.customerKey, '1');
      const accounts = assertSuccess<{ id: string; type: string }[]>(await getAccounts(h, { token }, customerId));
      assert.deepEqual(
        accounts.map((account) => [account.id, account.type]),
        [
          ['savings-11', 'D'],
          ['savings-12', 'S'],
          ['loan-21', 'L'],
        ],
      );
    });

    it('answers 502 when Fineract refuses the service user, names it in the log, and renews nothing', async () => {
      const customerId = uniqueId('refused');
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      const row = await associationRow(h, platform, customerId);
      standIn.setFaults({ errorRate: 1, errorStatus: 401 });
      standIn.requests.length = 0;
      lines.length = 0;
      const envelope = assertError(await getAccounts(h, { token }, customerId), BAD_GATEWAY);
      assert.equal((envelope.data as { reason?: string }).reason, 'core_failed');
      assert.deepEqual(
        standIn.requests.map((request) => `${request.method} ${request.path}`),
        ['GET /fineract-provider/api/v1/clients/1/accounts'],
        'one call: no renewal, no retry',
      );
      assert.deepEqual(await associationRow(h, platform, customerId), row, 'nothing renewed or marked');
      assert.ok(
        lines.some((line) => line.includes("Fineract refused the service user's credentials")),
        lines.join('\n'),
      );
    });

    it('renews when the client is gone from Fineract, and answers reregistration_required', async () => {
      const customerId = uniqueId('gone');
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      standIn.setClient(1, undefined);
      const envelope = assertError(await getAccounts(h, { token }, customerId), NOT_AUTHENTICATED);
      assert.equal((envelope.data as { reason?: string }).reason, 'reregistration_required');
      assert.equal((await associationRow(h, platform, customerId))?.needs_reregistration, true);
    });

    it('answers 503 with Retry-After when Fineract sheds load (429)', async () => {
      const customerId = uniqueId('busy');
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      standIn.setFaults({ errorRate: 1, errorStatus: 429 });
      const response = await getAccounts(h, { token }, customerId);
      assertError(response, UNAVAILABLE);
      assert.ok(Number(response.headers['retry-after']) >= 1);
    });
  });

  describe(
    `gateway with a Fineract institution that registers by key only (${backend.name})`,
    { skip: backend.skip, timeout: 30_000 },
    () => {
      let h: Harness;
      let token: string;

      before(async () => {
        // Never called: with the SSN lookup off, Form A is refused before any Fineract call.
        const core = new FineractCoreConnector({
          ...FINERACT_DEFAULTS,
          ssnLookup: 'off',
          baseUrl: 'http://127.0.0.1:9/fineract-provider',
          credentials: { username: 'u', password: 'p' },
          institution: 'default',
          timeoutMs: 1000,
          clock: new FollowingClock(),
          sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
        });
        h = await createHarness(backend, { core });
        token = await h.token(await h.client({ platform: 'fineract-off' }));
      });
      after(() => h?.close());

      it('answers Form A with 400 naming demographics and saying the bank registers by key only', async () => {
        const envelope = assertError(await postSession(h, { token }, formA(uniqueId('off'), ADA)), BAD_REQUEST);
        assert.match(envelope.message, /registers customers by customer key only/);
        assert.deepEqual(
          (envelope.data as { errors: { path: string }[] }).errors.map((problem) => problem.path),
          ['/demographics'],
        );
      });
    },
  );
}
