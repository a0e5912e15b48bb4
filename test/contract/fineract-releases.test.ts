/**
 * The connector against the stand-in of each Fineract release (docs/cores/fineract.md#releases):
 * what differs between 1.9, 1.10 and 1.11 and which SSN lookup finds the customer on each,
 * a read-only node, a tenant Fineract does not know.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { FineractCoreConnector } from '../../src/adapters/core/fineract/fineract-core-connector.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { FINERACT_DEFAULTS, type FineractSettings } from '../../src/domain/institution.js';
import {
  startFineractStandIn,
  type FineractStandInOptions,
  type RunningFineractStandIn,
} from '../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import { FINERACT_RELEASES } from '../../src/fakes/fineract-stand-in/releases.js';
import { DEMO_CLIENTS } from '../../src/fakes/fineract-stand-in/stand-in-data.js';
import { CustomerNotRecognised } from '../../src/ports/core-connector.js';
import { FakeClock } from '../support/fake-clock.js';

const ada = {
  kind: 'demographics',
  socialSecurityNumber: '123456789',
  birthDay: '1980-04-12',
  accountNumber: '70001234',
} as const;
const ctx = { requestId: 'releases' };

describe('Fineract connector against each release’s stand-in', () => {
  const opened: { close(): Promise<void> }[] = [];
  after(() => Promise.all(opened.map((item) => item.close())));

  async function pair(options: FineractStandInOptions, settings: Partial<FineractSettings> = {}) {
    const standIn: RunningFineractStandIn = await startFineractStandIn(options);
    const connector = new FineractCoreConnector({
      ...FINERACT_DEFAULTS,
      ...settings,
      baseUrl: standIn.url,
      credentials: standIn.credentials,
      institution: 'default',
      timeoutMs: 10_000,
      clock: new FakeClock(new Date('2026-03-01T00:00:00Z')),
      sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
    });
    opened.push(connector, standIn);
    return { standIn, connector };
  }

  for (const release of FINERACT_RELEASES) {
    it(`${release}: Form A by client search ${release === '1.11' ? 'finds' : 'finds nobody'}; by identifier search it finds the customer`, async () => {
      const bySearch = (await pair({ release })).connector;
      if (release === '1.11') assert.equal((await bySearch.startSession(ada, ctx)).customerKey, '1');
      else await assert.rejects(bySearch.startSession(ada, ctx), CustomerNotRecognised);
      const byIdentifier = await pair({ release }, { ssnLookup: 'identifier-search' });
      assert.equal((await byIdentifier.connector.startSession(ada, ctx)).customerKey, '1');
      assert.ok(
        byIdentifier.standIn.requests.some((request) =>
          request.path.endsWith('/api/v1/search?query=123-45-6789&resource=clientIdentifiers&exactMatch=true'),
        ),
      );
    });
  }

  it('reads a current account with an overdraft without a limit, and term deposits’ interest from their own answers', async () => {
    const chloe = DEMO_CLIENTS.find((client) => client.id === 3)!;
    const ada1 = DEMO_CLIENTS.find((client) => client.id === 1)!;
    const { standIn, connector } = await pair({ release: '1.10' });
    standIn.setClient(1, {
      ...ada1,
      savings: ada1.savings.map((account) =>
        account.id === 11 ? { ...account, allowOverdraft: true, overdraftLimit: 0 } : account,
      ),
    });
    const session = await connector.startSession({ kind: 'customerKey', customerKey: '1' }, ctx);
    const current = (await connector.listAccounts(session.delegateReferenceId, ctx)).find(
      (record) => record.id === 'savings-11',
    );
    assert.deepEqual([current?.type, current?.creditLimit, current?.availableCredit], ['D', 0, 0]);
    const deposits = await connector.startSession({ kind: 'customerKey', customerKey: String(chloe.id) }, ctx);
    const records = await connector.listAccounts(deposits.delegateReferenceId, ctx);
    assert.deepEqual(
      records.map((record) => record.type),
      ['S', 'T', 'R'],
    );
    assert.ok(
      standIn.requests.some((request) =>
        request.path.endsWith('/api/v1/fixeddepositaccounts/15?associations=transactions'),
      ),
    );
  });

  it('on a read-only node, client search fails with 405 named and identifier search (a GET) works', async () => {
    const { connector } = await pair({ readOnly: true });
    await assert.rejects(connector.startSession(ada, ctx), /a read-only Fineract node refuses every POST/);
    const byIdentifier = await pair({ readOnly: true }, { ssnLookup: 'identifier-search' });
    assert.equal((await byIdentifier.connector.startSession(ada, ctx)).customerKey, '1');
  });

  it('is not ready when Fineract does not know the tenant or refuses the user, saying which', async () => {
    const { connector } = await pair({});
    await connector.ping(ctx);
    await assert.rejects(
      (await pair({}, { tenant: 'elsewhere' })).connector.ping(ctx),
      /not ready: Fineract does not know the tenant "elsewhere"/,
    );
    const standIn = await startFineractStandIn();
    opened.push(standIn);
    const refused = new FineractCoreConnector({
      ...FINERACT_DEFAULTS,
      baseUrl: standIn.url,
      credentials: { username: standIn.credentials.username, password: 'wrong' },
      institution: 'default',
      timeoutMs: 10_000,
      clock: new FakeClock(),
      sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
    });
    opened.push(refused);
    await assert.rejects(refused.ping(ctx), /not ready: Fineract refused the service user's credentials \(401/);
  });
});
