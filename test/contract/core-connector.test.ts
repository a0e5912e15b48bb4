/**
 * The CoreConnector contract: one suite, run against every implementation — the
 * simulator in process, the HTTP connector talking to the simulator server over
 * loopback, and the Fineract connector talking to the Fineract stand-in, which serves
 * the simulator's named demo customers as Fineract clients.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { NO_DATE, type AccountRecord } from '../../src/domain/account.js';
import { FINERACT_DEFAULTS } from '../../src/domain/institution.js';
import { FineractCoreConnector } from '../../src/adapters/core/fineract/fineract-core-connector.js';
import { startFineractStandIn } from '../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import { FINERACT_RELEASES } from '../../src/fakes/fineract-stand-in/releases.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { FINERACT_DEMO_RECORDS } from '../support/fineract-demo-records.js';
import {
  CoreBusy,
  CoreUnavailable,
  CustomerNotRecognised,
  SessionRejected,
  type CoreConnector,
} from '../../src/ports/core-connector.js';
import { ACCOUNT_FIELDS } from '../../src/adapters/core/account-record.js';
import { HttpCoreConnector } from '../../src/adapters/core/http-core-connector.js';
import { InProcessCoreConnector } from '../../src/adapters/core/in-process-core-connector.js';
import {
  CoreSimulator,
  type SimulatorFaults,
  type SimulatorStats,
} from '../../src/fakes/core-simulator/core-simulator.js';
import { DEMO_CUSTOMERS, generatedCustomer, generatedDemographics } from '../../src/fakes/core-simulator/demo-data.js';
import { startSimulatorServer } from '../../src/fakes/core-simulator/simulator-server.js';
import { FakeClock } from '../support/fake-clock.js';
import type { RegistrationSubject } from '../../src/domain/registration.js';

/** What an implementation does beyond the common contract; the tests that need more are skipped without it. */
interface Capabilities {
  /** The simulator's generated population is served. */
  readonly generatedPopulation: boolean;
  /** The core keeps sessions of its own: they can be ended, expired all at once and counted. */
  readonly coreSessions: boolean;
  /** Starting a session changes something at the core, so a start that failed there is not safe to repeat. */
  readonly startSessionWrites: boolean;
}

/** What the suite needs from an implementation under test. */
interface Subject {
  /** With a deadline no call that must succeed meets, however loaded the machine. */
  readonly connector: CoreConnector;
  /** The same core with a deadline of SHORT_TIMEOUT_MS, for the test of that deadline. */
  readonly impatient: CoreConnector;
  readonly clock: FakeClock;
  readonly sessionTtlSeconds: number;
  /** The account records the core holds for `customerKey`, as the connector must return them. */
  accountsOf(customerKey: string): readonly AccountRecord[];
  /** The `X-Request-Id` of the last call the core received. */
  lastRequestId(): string | undefined;
  /** The core's control plane, the way a test of this implementation reaches it. */
  setFaults(faults: Partial<Pick<SimulatorFaults, 'latencyMs' | 'errorRate' | 'errorStatus'>>): Promise<void>;
  /** With `coreSessions` only. */
  expireAll?(): Promise<void>;
  stats?(): Promise<SimulatorStats>;
  close(): Promise<void>;
}

const TIMEOUT_MS = 10_000;
const SHORT_TIMEOUT_MS = 300;
const ctx = () => ({ requestId: `req-${randomUUID()}` });

/** Demographics as the gateway hands them to the port: already normalised (dashes gone). */
function normalisedDemographics(customer: {
  socialSecurityNumber: string;
  accountNumber: string;
  birthDay: string;
}): RegistrationSubject {
  return {
    kind: 'demographics',
    socialSecurityNumber: customer.socialSecurityNumber.replace(/-/g, ''),
    accountNumber: customer.accountNumber,
    birthDay: customer.birthDay,
  };
}

const ada = DEMO_CUSTOMERS[0]!;
const eve = DEMO_CUSTOMERS.find((customer) => customer.accounts.length === 0)!;

function coreConnectorContract(name: string, capabilities: Capabilities, open: () => Promise<Subject>): void {
  const withCoreSessions = { skip: !capabilities.coreSessions && 'the core keeps no sessions of its own' };
  describe(`CoreConnector contract (${name})`, () => {
    let s: Subject;
    before(async () => {
      s = await open();
    });
    after(() => s?.close());
    afterEach(() => s.setFaults({}));

    it('starts a session by normalised demographics', async () => {
      const session = await s.connector.startSession(normalisedDemographics(ada), ctx());
      assert.equal(session.customerKey, 'C-1001');
      assert.ok(session.delegateReferenceId.length >= 22, 'at least 128 bits of randomness');
      assert.equal(session.expiresAt.getTime(), s.clock.now().getTime() + s.sessionTtlSeconds * 1000);
    });

    it('starts a session by customer key, with a new delegate reference ID each time', async () => {
      const first = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1002' }, ctx());
      const second = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1002' }, ctx());
      assert.equal(first.customerKey, 'C-1002');
      assert.notEqual(first.delegateReferenceId, second.delegateReferenceId);
      // Starting a second session leaves the first one valid.
      assert.equal((await s.connector.listAccounts(first.delegateReferenceId, ctx())).length, 2);
    });

    it('finds a customer of the generated population', { skip: !capabilities.generatedPopulation }, async () => {
      const demographics = generatedDemographics(123_456);
      const session = await s.connector.startSession(normalisedDemographics(demographics), ctx());
      assert.equal(session.customerKey, 'C-123456');
      assert.deepEqual(
        await s.connector.listAccounts(session.delegateReferenceId, ctx()),
        generatedCustomer(123_456)!.accounts,
      );
    });

    it('throws CustomerNotRecognised for unknown demographics or customer key', async () => {
      await assert.rejects(
        s.connector.startSession(
          { ...normalisedDemographics(ada), birthDay: '1980-04-13' } as RegistrationSubject,
          ctx(),
        ),
        CustomerNotRecognised,
      );
      await assert.rejects(
        s.connector.startSession(
          { ...normalisedDemographics(ada), accountNumber: '70009999' } as RegistrationSubject,
          ctx(),
        ),
        CustomerNotRecognised,
      );
      await assert.rejects(
        s.connector.startSession({ kind: 'customerKey', customerKey: 'C-0000' }, ctx()),
        CustomerNotRecognised,
      );
    });

    it('lists accounts with every field of the account record and its type', async () => {
      const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx());
      const accounts = await s.connector.listAccounts(session.delegateReferenceId, ctx());
      assert.deepEqual(accounts, s.accountsOf('C-1001'));
      assert.equal(accounts.length, 3);
      for (const account of accounts) {
        assert.deepEqual(Object.keys(account).sort(), Object.keys(ACCOUNT_FIELDS).sort());
        for (const [field, kind] of Object.entries(ACCOUNT_FIELDS)) {
          const value = (account as unknown as Record<string, unknown>)[field];
          const expected = kind === 'number' ? 'number' : kind === 'boolean' ? 'boolean' : 'string';
          assert.equal(typeof value, expected, `${field} is a ${expected}`);
          if (kind === 'dateTime') assert.match(value as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
        }
        assert.equal(account.customerKey, 'C-1001');
      }
      assert.ok(accounts.some((account) => account.maturityDate === NO_DATE));
      assert.ok(
        accounts.every((account) => account.interestRate >= 0 && account.interestRate < 1),
        'interest rates are fractions',
      );
    });

    it('lists no accounts for a customer without any', async () => {
      const session = await s.connector.startSession(normalisedDemographics(eve), ctx());
      assert.deepEqual(await s.connector.listAccounts(session.delegateReferenceId, ctx()), []);
    });

    it('throws SessionRejected for an unknown delegate reference ID', async () => {
      await assert.rejects(s.connector.listAccounts('not-a-delegate-reference-id', ctx()), SessionRejected);
    });

    it('throws SessionRejected once the session has expired (clock past the TTL)', async () => {
      const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx());
      s.clock.advance(s.sessionTtlSeconds - 1);
      assert.equal((await s.connector.listAccounts(session.delegateReferenceId, ctx())).length, 3);
      s.clock.advance(1);
      await assert.rejects(s.connector.listAccounts(session.delegateReferenceId, ctx()), SessionRejected);
    });

    it(
      'ends a session (DELETE /v1/sessions), and takes an unknown one as already ended',
      withCoreSessions,
      async () => {
        const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1003' }, ctx());
        const other = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1003' }, ctx());
        await s.connector.endSession!(session.delegateReferenceId, ctx());
        await assert.rejects(s.connector.listAccounts(session.delegateReferenceId, ctx()), SessionRejected);
        assert.ok(
          Array.isArray(await s.connector.listAccounts(other.delegateReferenceId, ctx())),
          'the customer’s other session lives on',
        );
        await s.connector.endSession!(session.delegateReferenceId, ctx());
        await s.connector.endSession!('never-issued', ctx());
      },
    );

    it('fails endSession with CoreUnavailable when the core answers 5xx', withCoreSessions, async () => {
      const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1003' }, ctx());
      await s.setFaults({ errorRate: 1, errorStatus: 503 });
      await assert.rejects(s.connector.endSession!(session.delegateReferenceId, ctx()), CoreUnavailable);
    });

    it('throws SessionRejected after every session was expired by the simulator', withCoreSessions, async () => {
      const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1003' }, ctx());
      await s.expireAll!();
      await assert.rejects(s.connector.listAccounts(session.delegateReferenceId, ctx()), SessionRejected);
      assert.equal((await s.stats!()).activeSessions, 0);
    });

    it('counts sessions started, account requests and active sessions', withCoreSessions, async () => {
      await s.expireAll!();
      const before = await s.stats!();
      const one = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx());
      await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1004' }, ctx());
      await s.connector.listAccounts(one.delegateReferenceId, ctx());
      await assert.rejects(s.connector.listAccounts('unknown', ctx()), SessionRejected);
      await assert.rejects(
        s.connector.startSession({ kind: 'customerKey', customerKey: 'C-0000' }, ctx()),
        CustomerNotRecognised,
      );
      const after = await s.stats!();
      assert.equal(after.sessionsStarted - before.sessionsStarted, 2);
      assert.equal(after.accountRequests - before.accountRequests, 2);
      assert.equal(after.activeSessions, 2);
      s.clock.advance(s.sessionTtlSeconds);
      assert.equal((await s.stats!()).activeSessions, 0);
    });

    it('propagates the request ID to the core', async () => {
      const context = ctx();
      const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, context);
      assert.equal(s.lastRequestId(), context.requestId);
      const next = ctx();
      await s.connector.listAccounts(session.delegateReferenceId, next);
      assert.equal(s.lastRequestId(), next.requestId);
    });

    it('throws CoreUnavailable when the core fails (errorRate 1, errorStatus 500), until faults are reset', async () => {
      const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx());
      await s.setFaults({ errorRate: 1, errorStatus: 500 });
      const listing = await s.connector
        .listAccounts(session.delegateReferenceId, ctx())
        .catch((error: unknown) => error);
      assert.ok(listing instanceof CoreUnavailable, String(listing));
      assert.equal(listing.retrySafe, true, 'reading accounts is safe to retry');
      const starting = await s.connector
        .startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx())
        .catch((error: unknown) => error);
      assert.ok(starting instanceof CoreUnavailable, String(starting));
      if (capabilities.startSessionWrites)
        assert.equal(starting.retrySafe, false, 'the core may have started a session');
      else assert.equal(starting.retrySafe, true, 'starting a session only reads at the core');
      await s.setFaults({});
      assert.equal((await s.connector.listAccounts(session.delegateReferenceId, ctx())).length, 3);
    });

    it('throws CoreBusy, safe to repeat, when the core answers 429 (it sheds load)', async () => {
      const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx());
      const started = (await s.stats?.())?.sessionsStarted;
      await s.setFaults({ errorRate: 1, errorStatus: 429 });
      for (const call of [
        () => s.connector.listAccounts(session.delegateReferenceId, ctx()),
        () => s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx()),
      ]) {
        const error = await call().catch((caught: unknown) => caught);
        assert.ok(error instanceof CoreBusy, String(error));
        assert.equal(error.retrySafe, true, 'the core did nothing');
        assert.ok(error.retryAfterSeconds >= 1);
      }
      await s.setFaults({});
      assert.equal((await s.stats?.())?.sessionsStarted, started, 'no session was started');
    });

    it('throws CoreUnavailable within about the timeout when the core is slower', async () => {
      const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx());
      await s.setFaults({ latencyMs: 5000 });
      const started = performance.now();
      const error = await s.impatient
        .listAccounts(session.delegateReferenceId, ctx())
        .catch((caught: unknown) => caught);
      const elapsed = performance.now() - started;
      assert.ok(error instanceof CoreUnavailable, String(error));
      assert.match(error.message, new RegExp(`within ${SHORT_TIMEOUT_MS} ms`));
      // Well below the other connector's deadline: this one gave up at its own.
      assert.ok(
        elapsed >= SHORT_TIMEOUT_MS - 20 && elapsed < TIMEOUT_MS / 2,
        `gave up after ${Math.round(elapsed)} ms`,
      );
      await s.setFaults({ latencyMs: 50 });
      assert.equal(
        (await s.connector.listAccounts(session.delegateReferenceId, ctx())).length,
        3,
        'latency under the timeout is fine',
      );
    });

    it('never puts the delegate reference ID or demographics into error messages', async () => {
      const session = await s.connector.startSession({ kind: 'customerKey', customerKey: 'C-1001' }, ctx());
      await s.setFaults({ errorRate: 1, errorStatus: 503 });
      const errors = [
        await s.connector.listAccounts(session.delegateReferenceId, ctx()).catch((error: Error) => error),
        await s.connector.startSession(normalisedDemographics(ada), ctx()).catch((error: Error) => error),
      ];
      await s.setFaults({});
      errors.push(
        await s.connector
          .startSession({ ...normalisedDemographics(ada), birthDay: '1999-01-01' } as RegistrationSubject, ctx())
          .catch((error: Error) => error),
      );
      for (const error of errors) {
        assert.ok(error instanceof Error);
        const text = `${error.message} ${String(error.stack)}`;
        for (const secret of [session.delegateReferenceId, '123456789', '70001234', '1980-04-12'])
          assert.ok(!text.includes(secret), `"${error.message}" leaks a secret`);
      }
    });
  });
}

const SIMULATOR: Capabilities = { generatedPopulation: true, coreSessions: true, startSessionWrites: true };
const simulatorAccounts = (customerKey: string) =>
  DEMO_CUSTOMERS.find((customer) => customer.customerKey === customerKey)!.accounts;

coreConnectorContract('in-process simulator', SIMULATOR, async () => {
  const clock = new FakeClock();
  const simulator = new CoreSimulator({ clock });
  const connector = new InProcessCoreConnector(simulator, { timeoutMs: TIMEOUT_MS });
  return {
    connector,
    impatient: new InProcessCoreConnector(simulator, { timeoutMs: SHORT_TIMEOUT_MS }),
    clock,
    sessionTtlSeconds: simulator.sessionTtlSeconds,
    accountsOf: simulatorAccounts,
    lastRequestId: () => simulator.lastRequestId,
    setFaults: async (faults) => void simulator.setFaults(faults),
    expireAll: async () => void simulator.expireAll(),
    stats: async () => simulator.stats(),
    close: () => connector.close(),
  };
});

coreConnectorContract('HTTP connector → simulator server', SIMULATOR, async () => {
  const clock = new FakeClock();
  const simulator = new CoreSimulator({ clock });
  const apiKey = 'test-institution-key';
  const server = await startSimulatorServer({ simulator, port: 0, host: '127.0.0.1', apiKey });
  const connector = new HttpCoreConnector({ baseUrl: server.url, apiKey, timeoutMs: TIMEOUT_MS, connections: 4 });
  const impatient = new HttpCoreConnector({ baseUrl: server.url, apiKey, timeoutMs: SHORT_TIMEOUT_MS, connections: 4 });
  const control = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    assert.equal(response.status, 200, `${method} ${path}`);
    return response.json();
  };
  return {
    connector,
    impatient,
    clock,
    sessionTtlSeconds: simulator.sessionTtlSeconds,
    accountsOf: simulatorAccounts,
    lastRequestId: () => simulator.lastRequestId,
    setFaults: async (faults) => void (await control('POST', '/_sim/faults', faults)),
    expireAll: async () => void (await control('POST', '/_sim/sessions/expire')),
    stats: async () => (await control('GET', '/_sim/stats')) as SimulatorStats,
    close: async () => {
      await connector.close();
      await impatient.close();
      await server.close();
    },
  };
});

// Every release the connector serves: Form A by identifier search where the release's client
// search does not match identifiers (1.9, 1.10), by client search where it does.
for (const release of FINERACT_RELEASES)
  coreConnectorContract(
    `Fineract connector → Fineract stand-in ${release}`,
    { generatedPopulation: false, coreSessions: false, startSessionWrites: false },
    async () => {
      const clock = new FakeClock();
      const standIn = await startFineractStandIn({ release });
      // One sealer for both: each reads the delegate reference IDs the other issued.
      const sealer = new AesGcmSealer([encryptionKey(randomBytes(32))]);
      const fineract = (timeoutMs: number) =>
        new FineractCoreConnector({
          ...FINERACT_DEFAULTS,
          customerKey: 'external-id',
          ssnLookup: release === '1.11' ? 'client-search' : 'identifier-search',
          baseUrl: standIn.url,
          credentials: standIn.credentials,
          institution: 'default',
          timeoutMs,
          clock,
          sealer,
        });
      const connector = fineract(TIMEOUT_MS);
      const impatient = fineract(SHORT_TIMEOUT_MS);
      return {
        connector,
        impatient,
        clock,
        sessionTtlSeconds: FINERACT_DEFAULTS.sessionTtlSeconds,
        accountsOf: (customerKey) => FINERACT_DEMO_RECORDS[customerKey] ?? [],
        lastRequestId: () => standIn.requests.at(-1)?.headers['x-request-id'] as string | undefined,
        setFaults: async (faults) => {
          // Over HTTP, as an operator would.
          const response = await fetch(`${new URL(standIn.url).origin}/_sim/faults`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(faults),
          });
          assert.equal(response.status, 200);
        },
        close: async () => {
          await connector.close();
          await impatient.close();
          await standIn.close();
        },
      };
    },
  );
