/**
 * The Fineract connector against a hostile Fineract on loopback (docs/cores/fineract.md#hostile-answers):
 * another client's accounts, a client answer naming another id, Form A's calls telling which
 * test failed, `.`/`..` as external ids, 16-digit ids, unbounded fan-out, too many accounts
 * or search hits, a read-only node. Each ends in a bounded, named refusal.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { FineractCoreConnector } from '../../src/adapters/core/fineract/fineract-core-connector.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { FINERACT_DEFAULTS, type FineractSettings } from '../../src/domain/institution.js';
import { CoreProtocolError, CustomerNotRecognised, DemographicsNotAccepted } from '../../src/ports/core-connector.js';
import { FakeClock } from '../support/fake-clock.js';

type Route = (req: IncomingMessage, path: string) => [number, string] | undefined;

const savings = (id: string, clientId: string) =>
  `{"id":${id},"clientId":${clientId},"nominalAnnualInterestRate":1,"timeline":{"submittedOnDate":[2024,1,1]},"summary":{"accountBalance":1}}`;
const listed = (ids: string[]) =>
  `{"savingsAccounts":[${ids.map((id) => `{"id":${id},"accountNo":"A${id}","status":{"active":true},"depositType":{"id":100}}`).join(',')}]}`;
const client = (id: string, extra = '') =>
  `{"id":${id},"active":true,"dateOfBirth":[1980,4,12],"externalId":"E${id}"${extra}}`;
/** The transaction search's answer with no interest posting this year. */
const NO_POSTINGS = '{"content":[],"pageable":{"page":0,"size":200},"total":0}';
const identifiers =
  '[{"documentType":{"name":"SSN"},"documentKey":"123-45-6789","status":"clientIdentifierStatusType.active"}]';

describe('Fineract connector against a hostile Fineract', () => {
  let server: Server;
  let url: string;
  let route: Route = () => undefined;
  let seen: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const logLines: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').replace('/fineract-provider', '');
      seen.push(`${req.method} ${path}`);
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      // Answered on the next turn, so that calls sent together are in flight together.
      setImmediate(() => {
        inFlight -= 1;
        const [status, body] = route(req, path) ?? [
          404,
          '{"userMessageGlobalisationCode":"error.msg.resource.not.found"}',
        ];
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/fineract-provider`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen = [];
    mostInFlight = 0;
    logLines.length = 0;
  });

  const connector = (settings: Partial<FineractSettings> = {}) =>
    new FineractCoreConnector({
      ...FINERACT_DEFAULTS,
      ...settings,
      baseUrl: url,
      credentials: { username: 'u', password: 'p' },
      institution: 'default',
      timeoutMs: 10_000,
      clock: new FakeClock(),
      sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
      logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) }),
    });
  const ctx = { requestId: 'hostile' };
  const sessionFor = async (core: FineractCoreConnector, id: string) => {
    route = (_req, path) => (path === `/api/v1/clients/${id}` ? [200, client(id)] : undefined);
    return core.startSession({ kind: 'customerKey', customerKey: id }, ctx);
  };

  it('refuses another client’s accounts, counting them and naming no id', async () => {
    const core = connector();
    const session = await sessionFor(core, '7');
    route = (_req, path) => {
      if (path === '/api/v1/clients/7/accounts') return [200, listed(['70', '71', '99'])];
      if (path.includes('/transactions/search?')) return [200, NO_POSTINGS];
      const match = /^\/api\/v1\/savingsaccounts\/(\d+)/.exec(path);
      return match ? [200, savings(match[1]!, match[1] === '99' ? '8' : '7')] : undefined;
    };
    await assert.rejects(core.listAccounts(session.delegateReferenceId, ctx), (error: unknown) => {
      assert.ok(error instanceof CoreProtocolError);
      assert.match(error.message, /answered 1 of 3 accounts for another client than the session's$/);
      assert.doesNotMatch(error.message, /99|A99|\b8\b/);
      return true;
    });
  });

  it('stores nothing when the client answer names another id than the one asked for', async () => {
    route = (_req, path) => (path === '/api/v1/clients/7' ? [200, client('8')] : undefined);
    await assert.rejects(
      connector().startSession({ kind: 'customerKey', customerKey: '7' }, ctx),
      CustomerNotRecognised,
    );
    route = (_req, path) =>
      path === '/api/v1/clients/external-id/E7' ? [200, client('7', '').replace('"E7"', '"E8"')] : undefined;
    await assert.rejects(
      connector({ customerKey: 'external-id' }).startSession({ kind: 'customerKey', customerKey: 'E7' }, ctx),
      CustomerNotRecognised,
    );
  });

  it('keeps a 16-digit client id exact from the answer to the session and back', async () => {
    const core = connector();
    const id = '9007199254740993';
    const session = await sessionFor(core, id);
    assert.equal(session.customerKey, id);
    route = (_req, path) => (path === `/api/v1/clients/${id}/accounts` ? [200, '{}'] : undefined);
    assert.deepEqual(await core.listAccounts(session.delegateReferenceId, ctx), []);
    assert.deepEqual(seen, [`GET /api/v1/clients/${id}`, `GET /api/v1/clients/${id}/accounts`]);
    await assert.rejects(
      core.startSession({ kind: 'customerKey', customerKey: '1234567890123456789' }, ctx),
      CustomerNotRecognised,
    );
  });

  it('refuses . and .. as external ids without calling Fineract, and percent-encodes the rest', async () => {
    const core = connector({ customerKey: 'external-id' });
    for (const key of ['.', '..'])
      await assert.rejects(core.startSession({ kind: 'customerKey', customerKey: key }, ctx), CustomerNotRecognised);
    assert.deepEqual(seen, []);
    await assert.rejects(
      core.startSession({ kind: 'customerKey', customerKey: 'a/../b?c#d' }, ctx),
      CustomerNotRecognised,
    );
    assert.deepEqual(seen, ['GET /api/v1/clients/external-id/a%2F..%2Fb%3Fc%23d']);
  });

  it('makes the same calls, in number and kind, whichever Form A test fails', async () => {
    const known = (req: IncomingMessage, path: string): [number, string] | undefined => {
      if (path === '/api/v2/clients/search') return [200, '{"content":[{"id":7}],"totalElements":1}'];
      if (path === '/api/v1/clients/7/identifiers') return [200, identifiers];
      if (path === '/api/v1/clients/7') return [200, client('7')];
      if (path === '/api/v1/clients/7/accounts') return [200, listed(['70'])];
      return undefined;
    };
    const shape = async (subject: { ssn: string; birthDay: string; account: string }, routeFor: Route) => {
      route = routeFor;
      seen = [];
      await assert.rejects(
        connector().startSession(
          {
            kind: 'demographics',
            socialSecurityNumber: subject.ssn,
            birthDay: subject.birthDay,
            accountNumber: subject.account,
          },
          ctx,
        ),
        CustomerNotRecognised,
      );
      return seen.map((call) => call.replace(/\/\d+(\/|$)/, '/{id}$1')).sort();
    };
    const unknownSsn = await shape({ ssn: '999999999', birthDay: '1980-04-12', account: 'A70' }, (req, path) =>
      path === '/api/v2/clients/search' ? [200, '{"content":[],"totalElements":0}'] : undefined,
    );
    const wrongBirthDay = await shape({ ssn: '123456789', birthDay: '1981-04-12', account: 'A70' }, known);
    const wrongAccount = await shape({ ssn: '123456789', birthDay: '1980-04-12', account: 'A71' }, known);
    assert.deepEqual(unknownSsn, wrongBirthDay);
    assert.deepEqual(wrongBirthDay, wrongAccount);
    assert.equal(unknownSsn.length, 5);
  });

  it('has at most 8 Fineract calls in flight for one read, and refuses over 500 active accounts', async () => {
    const core = connector();
    const session = await sessionFor(core, '7');
    const ids = Array.from({ length: 60 }, (_, index) => String(100 + index));
    route = (_req, path) => {
      if (path === '/api/v1/clients/7/accounts') return [200, listed(ids)];
      if (path.includes('/transactions/search?')) return [200, NO_POSTINGS];
      const match = /^\/api\/v1\/savingsaccounts\/(\d+)/.exec(path);
      return match ? [200, savings(match[1]!, '7')] : undefined;
    };
    seen = [];
    assert.equal((await core.listAccounts(session.delegateReferenceId, ctx)).length, 60);
    assert.ok(mostInFlight <= 8 && mostInFlight >= 2, `at most 8 in flight, saw ${mostInFlight}`);
    const many = Array.from({ length: 501 }, (_, index) => String(1000 + index));
    route = (_req, path) => (path === '/api/v1/clients/7/accounts' ? [200, listed(many)] : undefined);
    seen = [];
    await assert.rejects(core.listAccounts(session.delegateReferenceId, ctx), /more than 500 active accounts/);
    assert.equal(seen.length, 1);
  });

  it('refuses a transaction search over the page bound, or whose pages do not add up to its total', async () => {
    const core = connector();
    const session = await sessionFor(core, '7');
    const posting = (day: number) =>
      `{"id":${day},"transactionType":{"interestPosting":true},"date":[2026,1,${day}],"amount":1,"reversed":false}`;
    let search = (_page: number): string => '{"content":[],"total":10001}';
    route = (_req, path) => {
      if (path === '/api/v1/clients/7/accounts') return [200, listed(['70'])];
      const page = /\/transactions\/search\?.*offset=(\d+)/.exec(path);
      if (page) return [200, search(Number(page[1]))];
      // Interest posted at some time: the year's postings are searched.
      const posted = savings('70', '7').replace('"accountBalance":1', '"accountBalance":1,"totalInterestPosted":2');
      return path === '/api/v1/savingsaccounts/70' ? [200, posted] : undefined;
    };
    seen = [];
    await assert.rejects(
      core.listAccounts(session.delegateReferenceId, ctx),
      /more than 10000 interest postings this year/,
    );
    assert.equal(seen.filter((call) => call.includes('/transactions/search')).length, 1);
    // A total of 201 asks two pages; the second holds nothing.
    search = (page) =>
      page === 0
        ? `{"content":[${Array.from({ length: 200 }, (_, day) => posting(1 + (day % 28))).join(',')}],"total":201}`
        : NO_POSTINGS.replace('"total":0', '"total":201');
    await assert.rejects(core.listAccounts(session.delegateReferenceId, ctx), /answered 200 rows for a total of 201/);
    search = () => `{"content":[${posting(1)},${posting(2)}],"total":2}`;
    assert.equal((await core.listAccounts(session.delegateReferenceId, ctx))[0]?.yearToDateInterest, 2);
  });

  it('refuses a search over 50 hits, in either lookup, naming the limit', async () => {
    const subject = {
      kind: 'demographics',
      socialSecurityNumber: '123456789',
      birthDay: '1980-04-12',
      accountNumber: 'A',
    } as const;
    route = (_req, path) =>
      path === '/api/v2/clients/search' ? [200, '{"content":[{"id":1}],"totalElements":51}'] : undefined;
    await assert.rejects(connector().startSession(subject, ctx), /more than 50 clients, the limit of one SSN search/);
    const rows = JSON.stringify(
      Array.from({ length: 50 }, (_, index) => ({ entityType: 'CLIENTIDENTIFIER', parentId: index + 1 })),
    );
    route = (_req, path) => (path.startsWith('/api/v1/search?') ? [200, rows] : undefined);
    await assert.rejects(
      connector({ ssnLookup: 'identifier-search' }).startSession(subject, ctx),
      /more than 50 clients/,
    );
    assert.ok(
      seen.some((call) => call === 'GET /api/v1/search?query=123456789&resource=clientIdentifiers&exactMatch=true'),
    );
  });

  it('refuses Form A at once when the SSN lookup is off, and names a read-only node in the log', async () => {
    const subject = {
      kind: 'demographics',
      socialSecurityNumber: '123456789',
      birthDay: '1980-04-12',
      accountNumber: 'A',
    } as const;
    await assert.rejects(connector({ ssnLookup: 'off' }).startSession(subject, ctx), DemographicsNotAccepted);
    assert.deepEqual(seen, []);
    route = (req) =>
      req.method === 'POST'
        ? [405, '{"userMessageGlobalisationCode":"error.msg.invalid.instance.type","httpStatusCode":"405"}']
        : undefined;
    await assert.rejects(connector().startSession(subject, ctx), /a read-only Fineract node refuses every POST/);
    assert.ok(
      logLines.some((line) => line.includes('read-only Fineract node') && line.includes('POST /v2/clients/search')),
    );
    assert.ok(!logLines.some((line) => line.includes('123456789')));
  });
});
