/**
 * The checks of `coregate core check` (`app/check-core.ts`) through the CoreConnector port: each
 * one's verdict against a core that behaves and against cores that break one rule each (bad
 * records, a forged ID accepted, unreachable, no readiness or end-session call); details never
 * carry a value read from the core or a delegate reference ID.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkCore } from '../../src/app/check-core.js';
import { checkAccountRecord } from '../../src/adapters/core/account-record.js';
import { CoreSimulator } from '../../src/fakes/core-simulator/core-simulator.js';
import { InProcessCoreConnector } from '../../src/adapters/core/in-process-core-connector.js';
import type { AccountRecord } from '../../src/domain/account.js';
import {
  CoreUnavailable,
  SessionRejected,
  type CoreConnector,
  type CoreSession,
} from '../../src/ports/core-connector.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { FineractCoreConnector } from '../../src/adapters/core/fineract/fineract-core-connector.js';
import { FINERACT_DEFAULTS } from '../../src/domain/institution.js';
import { FakeClock } from '../support/fake-clock.js';
import { freePort } from '../support/free-port.js';
import { startFineractStandIn } from '../../src/fakes/fineract-stand-in/fineract-stand-in.js';

const clock = new FakeClock();
const options = { institution: 'bank-t', now: () => clock.now(), checkRecord: checkAccountRecord };
const DRID = 'drid-secret-0123456789';

/** A core whose every answer a test can replace. */
function core(overrides: Partial<CoreConnector> = {}): CoreConnector {
  const session: CoreSession = {
    customerKey: 'K-1',
    delegateReferenceId: DRID,
    expiresAt: new Date(clock.now().getTime() + 600_000),
  };
  return {
    startSession: async () => session,
    listAccounts: async (drid) => {
      if (drid !== DRID) throw new SessionRejected();
      return [];
    },
    ping: async () => {},
    endSession: async () => {},
    close: async () => {},
    ...overrides,
  };
}

const verdicts = (report: Awaited<ReturnType<typeof checkCore>>) =>
  report.checks.map((check) => `${check.ok ? 'PASS' : 'FAIL'} ${check.name}`);

describe('checkCore', () => {
  it('passes every check against the simulator in process', async () => {
    const simulator = new CoreSimulator({ clock, sessionTtlSeconds: 900 });
    const report = await checkCore(new InProcessCoreConnector(simulator, { timeoutMs: 1000 }), {
      ...options,
      customerKey: 'C-1001',
    });
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.deepEqual(verdicts(report), [
      'PASS readiness',
      'PASS session',
      'PASS accounts',
      'PASS transactions',
      'PASS forged_session_rejected',
      'PASS end_session',
    ]);
    assert.match(report.checks[1]!.detail, /expiring in 900 s/);
    assert.match(report.checks[3]!.detail, /^100 transaction\(s\) of the first account/);
  });

  it('without a customer key: readiness and a random forged ID only', async () => {
    const report = await checkCore(core(), options);
    assert.deepEqual(verdicts(report), ['PASS readiness', 'PASS forged_session_rejected']);
    assert.match(report.checks[1]!.detail, /a random one/);
  });

  it('fails the accounts check naming the field and never the value', async () => {
    const bad = { id: 'A1', customerKey: 'K-1', currentBalance: '1234.56', routing: 'x' } as unknown as AccountRecord;
    const report = await checkCore(
      core({
        listAccounts: async (drid) => {
          if (drid !== DRID) throw new SessionRejected();
          return [bad];
        },
      }),
      { ...options, customerKey: 'K-1' },
    );
    assert.equal(report.ok, false);
    const accounts = report.checks.find((check) => check.name === 'accounts')!;
    assert.equal(accounts.ok, false);
    assert.match(accounts.detail, /accounts\[0\]\.currentBalance: expected a number, got a string/);
    assert.match(accounts.detail, /accounts\[0\]\.guid: missing/);
    assert.match(accounts.detail, /and \d+ more/);
    assert.doesNotMatch(accounts.detail, /1234/);
  });

  it('says when the forged ID was refused without asking the core (Fineract down: its handles are sealed here)', async () => {
    const down = new FineractCoreConnector({
      ...FINERACT_DEFAULTS,
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      credentials: { username: 'coregate-reader', password: 'unused' },
      institution: 'bank-t',
      timeoutMs: 300,
      clock,
      sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
    });
    try {
      const report = await checkCore(down, options);
      assert.deepEqual(verdicts(report), ['FAIL readiness', 'PASS forged_session_rejected']);
      assert.match(report.checks[1]!.detail, /\(checked locally, the core was not asked\)$/);
    } finally {
      await down.close();
    }
    const asked = await checkCore(core(), options);
    assert.doesNotMatch(asked.checks[1]!.detail, /locally/, 'a core that refused it itself');
  });

  it("checks Fineract transactions: the first account's page of the last 90 days", async () => {
    const standIn = await startFineractStandIn();
    const fineract = new FineractCoreConnector({
      ...FINERACT_DEFAULTS,
      baseUrl: standIn.url,
      credentials: standIn.credentials,
      institution: 'bank-t',
      timeoutMs: 5000,
      clock,
      sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
    });
    try {
      const report = await checkCore(fineract, { ...options, customerKey: '1' });
      const transactions = report.checks.find((check) => check.name === 'transactions')!;
      assert.equal(transactions.ok, true, transactions.detail);
      // The demo current account moves every day of the 90 before the clock's 2026-03-01.
      assert.match(
        transactions.detail,
        /^100 transaction\(s\) of the first account in the last 90 days.*cursor to the next page$/,
      );
    } finally {
      await fineract.close();
      await standIn.close();
    }
  });

  it('fails when a forged delegate reference ID is accepted, without printing either ID', async () => {
    const report = await checkCore(core({ listAccounts: async () => [] }), { ...options, customerKey: 'K-1' });
    const forged = report.checks.find((check) => check.name === 'forged_session_rejected')!;
    assert.equal(forged.ok, false);
    assert.match(forged.detail, /answered with 0 account\(s\)/);
    assert.doesNotMatch(JSON.stringify(report), new RegExp(DRID.slice(0, 10)));
  });

  it('forges a sealed delegate reference ID so that its integrity check refuses it, whatever its length', async () => {
    // A core whose IDs are sealed tokens (as the Fineract connector's are): a changed character at
    // the end of base64 can fall in bits the decoder ignores, so the forgery must change real ones.
    const sealer = new AesGcmSealer([encryptionKey(randomBytes(32))]);
    for (let length = 1; length <= 24; length += 1) {
      const token = sealer.seal(randomBytes(length).toString('hex'), 'session');
      const report = await checkCore(
        core({
          startSession: async () => ({ customerKey: 'K-1', delegateReferenceId: token, expiresAt: new Date(8e15) }),
          listAccounts: async (drid) => {
            try {
              sealer.open(drid, 'session');
            } catch {
              throw new SessionRejected();
            }
            return [];
          },
        }),
        { ...options, customerKey: 'K-1' },
      );
      assert.equal(report.ok, true, `length ${length}: ${JSON.stringify(report)}`);
    }
  });

  it('fails the session check for another customer key or an expired session', async () => {
    const other = await checkCore(
      core({
        startSession: async () => ({ customerKey: 'K-2', delegateReferenceId: DRID, expiresAt: new Date(8e15) }),
      }),
      { ...options, customerKey: 'K-1' },
    );
    assert.deepEqual(verdicts(other), ['PASS readiness', 'FAIL session', 'PASS forged_session_rejected']);
    const expired = await checkCore(
      core({ startSession: async () => ({ customerKey: 'K-1', delegateReferenceId: DRID, expiresAt: new Date(0) }) }),
      { ...options, customerKey: 'K-1' },
    );
    assert.match(expired.checks[1]!.detail, /expired already/);
  });

  it('reports an unreachable core at each check, and takes a connector without ping or end-session', async () => {
    const down = (): Promise<never> => Promise.reject(new CoreUnavailable('connection refused', true));
    const report = await checkCore(core({ ping: down, startSession: down, listAccounts: down }), {
      ...options,
      customerKey: 'K-1',
    });
    assert.deepEqual(verdicts(report), ['FAIL readiness', 'FAIL session', 'FAIL forged_session_rejected']);
    assert.match(report.checks[0]!.detail, /connection refused/);

    const bare = core();
    delete bare.ping;
    delete bare.endSession;
    const minimal = await checkCore(bare, { ...options, customerKey: 'K-1' });
    assert.deepEqual(verdicts(minimal), [
      'PASS readiness',
      'PASS session',
      'PASS accounts',
      'PASS forged_session_rejected',
    ]);
    assert.match(minimal.checks[0]!.detail, /no readiness call/);
  });
});
