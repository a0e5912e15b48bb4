/**
 * The Fineract connector against the Fineract stand-in over a real socket
 * (docs/cores/fineract.md): exactly the documented calls with the documented headers,
 * registration by demographics and by key, accounts, sealed session tokens, and every
 * failure row; no SSN, account number or birth date in a URL, an error or a log line.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import {
  FineractCoreConnector,
  type FineractCoreConnectorOptions,
} from '../../src/adapters/core/fineract/fineract-core-connector.js';
import {
  startFineractStandIn,
  STAND_IN_CREDENTIALS,
  type RunningFineractStandIn,
} from '../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import {
  DEMO_CLIENTS,
  type StandInClient,
  type StandInSavings,
} from '../../src/fakes/fineract-stand-in/stand-in-data.js';
import { FINERACT_DEFAULTS } from '../../src/domain/institution.js';
import type { RegistrationSubject } from '../../src/domain/registration.js';
import {
  CoreBusy,
  CoreProtocolError,
  CoreUnavailable,
  CustomerNotRecognised,
  SessionRejected,
} from '../../src/ports/core-connector.js';
import { FakeClock } from '../support/fake-clock.js';

/** Generous for calls that must succeed on a loaded machine; the deadline test sets its own short one. */
const TIMEOUT_MS = 10_000;
const SHORT_TIMEOUT_MS = 300;
const ada: RegistrationSubject = {
  kind: 'demographics',
  socialSecurityNumber: '123456789',
  accountNumber: '70001234',
  birthDay: '1980-04-12',
};
const SECRETS = ['123456789', '123-45-6789', '70001234', '1980-04-12', '1980', STAND_IN_CREDENTIALS.password];
const sealer = new AesGcmSealer([encryptionKey(randomBytes(32))]);
let requestCounter = 0;
const ctx = () => ({ requestId: `req-${++requestCounter}` });
/** The first page of a savings account's 2026 interest postings, below the context root. */
const interestSearch = (id: number) =>
  `/api/v1/savingsaccounts/${id}/transactions/search?fromDate=2026-01-01&toDate=2026-12-31&dateFormat=yyyy-MM-dd&locale=en&types=3&offset=0&limit=200`;

describe('FineractCoreConnector against the Fineract stand-in', () => {
  let standIn: RunningFineractStandIn;
  let clock: FakeClock;
  let logLines: string[];
  const connectors: FineractCoreConnector[] = [];

  function connector(options: Partial<FineractCoreConnectorOptions> = {}): FineractCoreConnector {
    const made = new FineractCoreConnector({
      ...FINERACT_DEFAULTS,
      baseUrl: standIn.url,
      credentials: STAND_IN_CREDENTIALS,
      institution: 'bank-one',
      timeoutMs: TIMEOUT_MS,
      clock,
      sealer,
      logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }),
      ...options,
    });
    connectors.push(made);
    return made;
  }

  /** The calls since the last reset, as `METHOD path`. */
  const calls = () => standIn.requests.map((request) => `${request.method} ${request.path}`);

  before(async () => {
    standIn = await startFineractStandIn();
  });
  after(async () => {
    await Promise.all(connectors.map((made) => made.close()));
    await standIn.close();
  });
  beforeEach(() => {
    clock = new FakeClock('2026-03-01T12:00:00Z');
    logLines = [];
    standIn.requests.length = 0;
  });
  afterEach(() => {
    standIn.setFaults({});
    for (const client of DEMO_CLIENTS) standIn.setClient(client.id, client);
    // Nothing personal ever reaches a URL or a log line.
    for (const request of standIn.requests)
      for (const secret of SECRETS) assert.ok(!request.path.includes(secret), `${request.path} carries a secret`);
    for (const line of logLines) for (const secret of SECRETS) assert.ok(!line.includes(secret), `log: ${line}`);
  });

  it('registers by demographics with exactly the documented calls and headers', async () => {
    const context = ctx();
    const session = await connector().startSession(ada, context);
    assert.equal(session.customerKey, '1');
    assert.equal(session.expiresAt.getTime(), clock.now().getTime() + 900_000);
    assert.deepEqual(calls(), [
      'POST /fineract-provider/api/v2/clients/search',
      'POST /fineract-provider/api/v2/clients/search',
      'GET /fineract-provider/api/v1/clients/1/identifiers',
      'GET /fineract-provider/api/v1/clients/1',
      'GET /fineract-provider/api/v1/clients/1/accounts',
    ]);
    assert.deepEqual(
      standIn.requests.slice(0, 2).map((request) => JSON.parse(request.body) as unknown),
      [
        { request: { text: '123456789' }, page: 0, size: 50 },
        { request: { text: '123-45-6789' }, page: 0, size: 50 },
      ],
    );
    const basic = `Basic ${Buffer.from('coregate-reader:stand-in-password').toString('base64')}`;
    for (const request of standIn.requests) {
      assert.equal(request.headers.authorization, basic);
      assert.equal(request.headers['fineract-platform-tenantid'], 'default');
      assert.equal(request.headers.accept, 'application/json');
      assert.equal(request.headers['x-request-id'], context.requestId);
    }
    for (const request of standIn.requests.slice(2)) assert.equal(request.body, '', 'only the search has a body');
  });

  it('finds a client whose SSN is stored as digits, and answers the external id in external-id mode', async () => {
    const session = await connector({ customerKey: 'external-id' }).startSession(
      { kind: 'demographics', socialSecurityNumber: '234567890', accountNumber: '70002345', birthDay: '1975-11-30' },
      ctx(),
    );
    assert.equal(session.customerKey, 'C-1002');
  });

  it('registers by a loan account number too', async () => {
    const session = await connector().startSession(
      { kind: 'demographics', socialSecurityNumber: '123456789', accountNumber: '80001001', birthDay: '1980-04-12' },
      ctx(),
    );
    assert.equal(session.customerKey, '1');
  });

  it('does not recognise demographics when any test fails, and says nothing about which', async () => {
    const core = connector();
    const messages = new Set<string>();
    for (const subject of [
      { ...ada, birthDay: '1980-04-13' },
      { ...ada, accountNumber: '70009999' },
      { ...ada, socialSecurityNumber: '999999999' },
      // Finn is a closed client.
      { kind: 'demographics', socialSecurityNumber: '678901234', accountNumber: '0', birthDay: '1959-09-09' },
    ] as RegistrationSubject[]) {
      const error = await core.startSession(subject, ctx()).catch((caught: unknown) => caught);
      assert.ok(error instanceof CustomerNotRecognised, String(error));
      messages.add(error.message);
    }
    assert.equal(messages.size, 1);
  });

  it('refuses an inactive identifier, another document type, and two clients with the same SSN', async () => {
    const adaClient = DEMO_CLIENTS[0]!;
    const core = connector();
    standIn.setClient(1, {
      ...adaClient,
      identifiers: [{ documentType: 'SSN', documentKey: '123-45-6789', active: false }],
    });
    await assert.rejects(core.startSession(ada, ctx()), CustomerNotRecognised);
    standIn.setClient(1, {
      ...adaClient,
      identifiers: [{ documentType: 'TIN', documentKey: '123-45-6789', active: true }],
    });
    await assert.rejects(core.startSession(ada, ctx()), CustomerNotRecognised);
    assert.equal((await connector({ ssnDocumentType: 'TIN' }).startSession(ada, ctx())).customerKey, '1');
    standIn.setClient(1, adaClient);
    const twin: StandInClient = { ...adaClient, id: 99, externalId: 'C-9999' };
    standIn.setClient(99, twin);
    try {
      await assert.rejects(core.startSession(ada, ctx()), CustomerNotRecognised);
    } finally {
      standIn.setClient(99, undefined);
    }
  });

  it('registers by customer key: an active client by id, or by external id', async () => {
    const byId = connector();
    assert.equal((await byId.startSession({ kind: 'customerKey', customerKey: '3' }, ctx())).customerKey, '3');
    assert.deepEqual(calls(), ['GET /fineract-provider/api/v1/clients/3']);
    standIn.requests.length = 0;
    for (const customerKey of ['C-1003', '03', '-3', '1e3']) {
      await assert.rejects(byId.startSession({ kind: 'customerKey', customerKey }, ctx()), CustomerNotRecognised);
    }
    assert.deepEqual(calls(), [], 'a key that is not a decimal id is not sent');
    await assert.rejects(byId.startSession({ kind: 'customerKey', customerKey: '404' }, ctx()), CustomerNotRecognised);
    await assert.rejects(byId.startSession({ kind: 'customerKey', customerKey: '6' }, ctx()), CustomerNotRecognised);

    const byExternalId = connector({ customerKey: 'external-id' });
    standIn.requests.length = 0;
    const session = await byExternalId.startSession({ kind: 'customerKey', customerKey: 'C-1003' }, ctx());
    assert.equal(session.customerKey, 'C-1003');
    assert.deepEqual(calls(), ['GET /fineract-provider/api/v1/clients/external-id/C-1003']);
    await assert.rejects(
      byExternalId.startSession({ kind: 'customerKey', customerKey: 'C/../1' }, ctx()),
      CustomerNotRecognised,
    );
    assert.equal(calls().at(-1), 'GET /fineract-provider/api/v1/clients/external-id/C%2F..%2F1');
  });

  it('lists active accounts, savings first then loans, with exactly the documented calls', async () => {
    const core = connector();
    const session = await core.startSession({ kind: 'customerKey', customerKey: '1' }, ctx());
    standIn.requests.length = 0;
    const accounts = await core.listAccounts(session.delegateReferenceId, ctx());
    // Each savings account's search follows its own answer: sorted, the order of the others is the machine's.
    assert.deepEqual(calls().sort(), [
      'GET /fineract-provider/api/v1/clients/1/accounts',
      'GET /fineract-provider/api/v1/loans/21?associations=repaymentSchedule,transactions',
      'GET /fineract-provider/api/v1/savingsaccounts/11',
      `GET /fineract-provider${interestSearch(11)}`,
      'GET /fineract-provider/api/v1/savingsaccounts/12',
      `GET /fineract-provider${interestSearch(12)}`,
    ]);
    assert.deepEqual(
      accounts.map((account) => [account.id, account.type, account.accountReferenceId, account.customerKey]),
      [
        ['savings-11', 'D', '70001234', '1'],
        ['savings-12', 'S', '70001235', '1'],
        ['loan-21', 'L', '80001001', '1'],
      ],
    );
    const [current, savings, loan] = accounts as [(typeof accounts)[0], (typeof accounts)[0], (typeof accounts)[0]];
    assert.deepEqual(
      [current.currentBalance, current.availableBalance, current.creditLimit, current.availableCredit],
      [2543.17, 2493.17, 500, 500],
    );
    assert.equal(current.yearToDateInterest, 0.38);
    assert.equal(savings.guid, '3f6c1a52-8a0e-4c1e-9d7b-1b2f0c9a1002');
    assert.equal(savings.interestRate, 0.0425);
    assert.equal(savings.yearToDateInterest, 112.95);
    assert.equal(savings.originationDate, '2019-05-01T00:00:00');
    assert.equal(loan.nextPaymentDate, '2026-03-15T00:00:00');
    assert.equal(loan.paidYearToDateInterest, 87.25);
    assert.equal(loan.originalBalance, 6000);
  });

  it('searches a savings account’s interest postings only when its answer leaves them open', async () => {
    const core = connector({ sessionTtlSeconds: 60 });
    const adaClient = DEMO_CLIENTS[0]!;
    let session = await core.startSession({ kind: 'customerKey', customerKey: '1' }, ctx());
    const searches = () => calls().filter((made) => made.includes('/transactions/search'));
    const read = async () => {
      standIn.requests.length = 0;
      const accounts = await core.listAccounts(session.delegateReferenceId, ctx());
      return accounts.map((account) => account.yearToDateInterest);
    };
    assert.deepEqual(await read(), [0.38, 112.95, 87.25]);
    assert.equal(searches().length, 2);
    // The same summaries within the session TTL: the sums searched before.
    assert.deepEqual(await read(), [0.38, 112.95, 87.25]);
    assert.deepEqual(searches(), []);
    assert.equal(calls().length, 4);
    // A new posting changes account 12's summary (its total posted): that account is searched again.
    const [current, savings] = adaClient.savings as [StandInSavings, StandInSavings];
    const posting = { id: 1299, kind: 'interestPosting', date: [2026, 3, 31], amount: 1.05 } as const;
    const posted = { ...savings, transactions: [...savings.transactions, posting] };
    standIn.setClient(1, { ...adaClient, savings: [current, posted] });
    assert.deepEqual(await read(), [0.38, 114, 87.25]);
    assert.deepEqual(searches(), [`GET /fineract-provider${interestSearch(12)}`]);
    // No summary changes, but the remembered sums are a session TTL old: both searched again.
    clock.advance(60);
    session = await core.startSession({ kind: 'customerKey', customerKey: '1' }, ctx());
    assert.deepEqual(await read(), [0.38, 114, 87.25]);
    assert.equal(searches().length, 2);
    // No interest ever posted: Fineract leaves `totalInterestPosted` out, and there is nothing to search.
    const withoutPostings = {
      ...current,
      transactions: current.transactions.filter((t) => t.kind !== 'interestPosting'),
    };
    standIn.setClient(1, { ...adaClient, savings: [withoutPostings, posted] });
    assert.deepEqual(await read(), [0, 114, 87.25]);
    assert.deepEqual(searches(), []);
  });

  it('reads a fixed and a recurring deposit’s maturity from their own calls, and leaves out closed accounts', async () => {
    const core = connector();
    const chloe = await core.startSession({ kind: 'customerKey', customerKey: '3' }, ctx());
    standIn.requests.length = 0;
    const accounts = await core.listAccounts(chloe.delegateReferenceId, ctx());
    assert.deepEqual(
      accounts.map((account) => [account.type, account.maturityDate, account.originalBalance]),
      [
        ['S', '0001-01-01T00:00:00', 0],
        ['T', '2026-10-15T00:00:00', 10000],
        ['R', '2027-06-01T00:00:00', 100],
      ],
    );
    assert.ok(calls().includes('GET /fineract-provider/api/v1/fixeddepositaccounts/15?associations=transactions'));
    assert.ok(calls().includes('GET /fineract-provider/api/v1/recurringdepositaccounts/16?associations=transactions'));
    const ben = await core.startSession({ kind: 'customerKey', customerKey: '2' }, ctx());
    assert.deepEqual(
      (await core.listAccounts(ben.delegateReferenceId, ctx())).map((account) => account.id),
      ['savings-13', 'loan-22'],
    );
    const eve = await core.startSession({ kind: 'customerKey', customerKey: '5' }, ctx());
    assert.deepEqual(await core.listAccounts(eve.delegateReferenceId, ctx()), []);
  });

  it('rejects a forged, expired or other institution’s token without calling Fineract', async () => {
    const core = connector();
    const session = await core.startSession({ kind: 'customerKey', customerKey: '1' }, ctx());
    assert.ok(session.delegateReferenceId.length >= 22);
    assert.notEqual(
      session.delegateReferenceId,
      (await core.startSession({ kind: 'customerKey', customerKey: '1' }, ctx())).delegateReferenceId,
    );
    standIn.requests.length = 0;
    const tampered = `${session.delegateReferenceId.slice(0, -2)}${session.delegateReferenceId.endsWith('A') ? 'BB' : 'AA'}`;
    for (const token of ['not-a-token', tampered, '']) {
      await assert.rejects(core.listAccounts(token, ctx()), SessionRejected);
    }
    await assert.rejects(
      connector({ institution: 'bank-two' }).listAccounts(session.delegateReferenceId, ctx()),
      SessionRejected,
    );
    await assert.rejects(
      connector({ tenant: 'other' }).listAccounts(session.delegateReferenceId, ctx()),
      SessionRejected,
    );
    clock.advance(899);
    assert.equal(calls().length, 0);
    assert.equal((await core.listAccounts(session.delegateReferenceId, ctx())).length, 3);
    clock.advance(1);
    standIn.requests.length = 0;
    await assert.rejects(core.listAccounts(session.delegateReferenceId, ctx()), SessionRejected);
    assert.equal(calls().length, 0);
  });

  it('takes a client gone from Fineract during an account read as a rejected session', async () => {
    const core = connector();
    const session = await core.startSession({ kind: 'customerKey', customerKey: '4' }, ctx());
    standIn.setClient(4, undefined);
    await assert.rejects(core.listAccounts(session.delegateReferenceId, ctx()), SessionRejected);
    await assert.rejects(core.startSession({ kind: 'customerKey', customerKey: '4' }, ctx()), CustomerNotRecognised);
  });

  it('fails with a core error, never a rejected session, when Fineract refuses the service user (401/403), and logs it', async () => {
    const core = connector({ credentials: { username: 'coregate-reader', password: 'wrong' } });
    const good = await connector().startSession({ kind: 'customerKey', customerKey: '1' }, ctx());
    for (const call of [
      () => core.startSession(ada, ctx()),
      () => core.startSession({ kind: 'customerKey', customerKey: '1' }, ctx()),
      () => core.listAccounts(good.delegateReferenceId, ctx()),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      assert.ok(error instanceof CoreProtocolError, String(error));
      assert.ok(!(error instanceof SessionRejected));
      assert.match(error.message, /^core protocol error: Fineract refused the service user's credentials \(401 to /);
    }
    assert.ok(logLines.some((line) => line.includes("Fineract refused the service user's credentials")));
    assert.ok(!logLines.some((line) => line.includes('wrong')), 'the password is never logged');
    const otherTenant = await connector({ tenant: 'elsewhere' })
      .startSession({ kind: 'customerKey', customerKey: '1' }, ctx())
      .catch((caught: unknown) => caught);
    // Fineract's tenant filter: 400 through the servlet's error page, the tenant named as unknown.
    assert.ok(
      otherTenant instanceof CoreProtocolError &&
        /Fineract does not know the tenant "elsewhere" \(400 from its tenant filter\)/.test(otherTenant.message),
      String(otherTenant),
    );
    assert.ok(logLines.some((line) => line.includes('Fineract does not know the tenant \\"elsewhere\\"')));
    standIn.setFaults({ errorRate: 1, errorStatus: 403 });
    const forbidden = await connector()
      .listAccounts(good.delegateReferenceId, ctx())
      .catch((caught: unknown) => caught);
    assert.ok(forbidden instanceof CoreProtocolError && /credentials \(403/.test(forbidden.message));
  });

  it('maps 429 to CoreBusy, 5xx to CoreUnavailable, and a slow Fineract to a timeout', async () => {
    const core = connector();
    const session = await core.startSession({ kind: 'customerKey', customerKey: '1' }, ctx());
    standIn.setFaults({ errorRate: 1, errorStatus: 429 });
    const busy = await core.listAccounts(session.delegateReferenceId, ctx()).catch((caught: unknown) => caught);
    assert.ok(busy instanceof CoreBusy && busy.retryAfterSeconds >= 1, String(busy));
    standIn.setFaults({ errorRate: 1, errorStatus: 503 });
    for (const call of [
      () => core.listAccounts(session.delegateReferenceId, ctx()),
      () => core.startSession(ada, ctx()),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      assert.ok(error instanceof CoreUnavailable && error.retrySafe, String(error));
      assert.match(error.message, /Fineract answered 503/);
    }
    standIn.setFaults({ latencyMs: 2000 });
    const impatient = connector({ timeoutMs: SHORT_TIMEOUT_MS });
    const slow = await impatient.listAccounts(session.delegateReferenceId, ctx()).catch((caught: unknown) => caught);
    assert.ok(slow instanceof CoreUnavailable && /within 300 ms/.test(slow.message), String(slow));
  });

  it('maps a refused connection to CoreUnavailable', async () => {
    const closed = await startFineractStandIn();
    const url = closed.url;
    await closed.close();
    const error = await connector({ baseUrl: url })
      .startSession(ada, ctx())
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof CoreUnavailable && /ECONNREFUSED/.test(error.message), String(error));
  });

  it('names the call and field of a malformed answer, never a value', async () => {
    const core = connector();
    const session = await core.startSession({ kind: 'customerKey', customerKey: '1' }, ctx());
    standIn.setFaults({ malformed: true });
    const error = await core.listAccounts(session.delegateReferenceId, ctx()).catch((caught: unknown) => caught);
    assert.ok(error instanceof CoreProtocolError, String(error));
    // Whichever answer is read first names its call: an account without `summary`, or a searched posting's string date.
    assert.match(
      error.message,
      /invalid Fineract answer to GET \/v1\/(((savingsaccounts|loans)\/\{id\}: summary: expected an object)|(savingsaccounts\/\{id\}\/transactions\/search: content\[0\]\.date: expected a date as an array))/,
    );
    // The read's other calls, already passed to the gate, still reach the stand-in: wait for them before the next test.
    const readCalls = ['/savingsaccounts/11', '/savingsaccounts/12', '/loans/21'];
    // (An answer without `summary` leaves no interest to search.)
    while (readCalls.some((call) => !calls().some((made) => made.includes(call))))
      await new Promise((resolve) => setImmediate(resolve));
    const registering = await core.startSession(ada, ctx()).catch((caught: unknown) => caught);
    assert.ok(registering instanceof CoreProtocolError, String(registering));
    // Form A's account list call, made beside the client's, may land after the refusal: wait for it too.
    while (calls().filter((made) => made.endsWith('/clients/1/accounts')).length < 2)
      await new Promise((resolve) => setImmediate(resolve));
    assert.match(
      registering.message,
      /GET \/v1\/clients\/\{id\}: dateOfBirth: expected a date as an array of three integers/,
    );
    for (const secret of SECRETS) assert.ok(!registering.message.includes(secret));
  });

  it('checks readiness with GET /actuator/health and one authenticated read (client 0, Fineract’s own 404)', async () => {
    const core = connector();
    await core.ping(ctx());
    assert.deepEqual(calls(), ['GET /fineract-provider/actuator/health', 'GET /fineract-provider/api/v1/clients/0']);
    await assert.rejects(connector({ credentials: { username: 'coregate-reader', password: 'wrong' } }).ping(ctx()), {
      message: /not ready: Fineract refused the service user's credentials \(401 to GET \/v1\/clients\/\{id\}\)/,
    });
    standIn.setFaults({ errorRate: 1, errorStatus: 503 });
    await assert.rejects(core.ping(ctx()), CoreUnavailable);
  });

  it('has no end-session call: Fineract keeps no session to end', () => {
    assert.equal((connector() as { endSession?: unknown }).endSession, undefined);
  });
});
