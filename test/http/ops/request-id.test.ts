/**
 * Request ids end to end: the caller's `X-Request-Id` (or a generated one when it
 * sends none, or one unfit for a log) is answered back, reaches the core on every
 * call the request makes (registration, accounts, a renewal) — here a simulator
 * over real HTTP — and is on every log line the request writes, through the
 * production logger, the core circuit breaker's line included.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it, mock } from 'node:test';
import { HttpCoreConnector } from '../../../src/adapters/core/http-core-connector.js';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { simulatorHandler } from '../../../src/fakes/core-simulator/simulator-server.js';
import { createLogger } from '../../../src/adapters/logging/logger.js';
import { pgliteBackend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertError,
  assertSuccess,
  BAD_GATEWAY,
  BOB,
  FollowingClock,
  formA,
  getAccounts,
  postSession,
  uniqueId,
} from '../gateway/gateway-requests.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const COOLDOWN_SECONDS = 30;

describe('request ids (pglite, core over HTTP)', () => {
  let h: Harness;
  let server: Server;
  let connector: HttpCoreConnector;
  const clock = new FollowingClock();
  const simulator = new CoreSimulator({ clock });
  /** Every call the core received: path and X-Request-Id. */
  const received: { path: string; requestId: string | undefined }[] = [];
  const lines: string[] = [];

  before(async () => {
    const handler = simulatorHandler(simulator);
    server = createServer((req, res) => {
      if (!req.url?.startsWith('/_sim'))
        received.push({ path: req.url ?? '', requestId: req.headers['x-request-id'] as string | undefined });
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    connector = new HttpCoreConnector({
      baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      timeoutMs: 1000,
      connections: 2,
    });
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    h = await createHarness(pgliteBackend, {
      core: connector,
      logger,
      // A minimum of one call, so that a few failures open the breaker and its line is written during a request.
      env: {
        LOG_LEVEL: 'info',
        COREGATE_CORE_BREAKER_FAILURES: '1',
        COREGATE_CORE_BREAKER_COOLDOWN_SECONDS: String(COOLDOWN_SECONDS),
      },
    });
    clock.target = h.clock;
  });
  after(async () => {
    mock.timers.reset();
    await h?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  async function token(): Promise<string> {
    return h.token(await h.client({ platform: 'request-ids' }));
  }

  /** Runs `request` and returns the log lines it wrote, parsed. */
  async function logged(request: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
    const from = lines.length;
    await request();
    return lines.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('sends the caller’s X-Request-Id to the core on every call of the request, and answers it back', async () => {
    const bearer = await token();
    const customerId = uniqueId('traced');

    received.length = 0;
    const registration = await postSession(
      h,
      { token: bearer, headers: { 'x-request-id': 'platform-trace-0001' } },
      formA(customerId, BOB),
    );
    assertSuccess(registration);
    assert.equal(registration.headers['x-request-id'], 'platform-trace-0001');
    assert.deepEqual(received, [{ path: '/v1/sessions', requestId: 'platform-trace-0001' }]);

    received.length = 0;
    const accounts = await getAccounts(
      h,
      { token: bearer, headers: { 'x-request-id': 'platform-trace-0002' } },
      customerId,
    );
    assertSuccess(accounts);
    assert.equal(accounts.headers['x-request-id'], 'platform-trace-0002');
    assert.deepEqual(received, [{ path: '/v1/accounts', requestId: 'platform-trace-0002' }]);

    // A rejected session: the renewal and the retry carry the same id.
    simulator.expireAll();
    received.length = 0;
    assertSuccess(
      await getAccounts(h, { token: bearer, headers: { 'x-request-id': 'platform-trace-0003' } }, customerId),
    );
    assert.deepEqual(received, [
      { path: '/v1/accounts', requestId: 'platform-trace-0003' },
      { path: '/v1/sessions', requestId: 'platform-trace-0003' },
      { path: '/v1/accounts', requestId: 'platform-trace-0003' },
    ]);
  });

  it('generates an id when the caller sends none, or one unfit for a log, and the core gets that one', async () => {
    const bearer = await token();
    const customerId = uniqueId('generated');
    assertSuccess(await postSession(h, { token: bearer }, formA(customerId, BOB)));
    for (const given of [undefined, 'has spaces in it', 'x'.repeat(129), 'quote"and\\backslash']) {
      received.length = 0;
      const response = await getAccounts(
        h,
        { token: bearer, headers: given === undefined ? {} : { 'x-request-id': given } },
        customerId,
      );
      assertSuccess(response);
      const id = String(response.headers['x-request-id']);
      assert.match(id, UUID, `given ${JSON.stringify(given)}`);
      assert.deepEqual(received, [{ path: '/v1/accounts', requestId: id }]);
    }
  });

  it('puts the request id on every log line of the request, and writes one access line per request', async () => {
    const bearer = await token();
    const customerId = uniqueId('logged');
    const registration = await logged(() =>
      postSession(h, { token: bearer, headers: { 'x-request-id': 'log-trace-0001' } }, formA(customerId, BOB)),
    );
    const messages = registration.map((line) => line['msg']);
    // One access line per request (plugins/request-log.ts), written when it is answered.
    assert.deepEqual(messages, ['customer registered', 'request completed']);
    for (const line of registration) assert.equal(line['reqId'], 'log-trace-0001', JSON.stringify(line));
    const completed = registration.find((line) => line['msg'] === 'request completed')!;
    assert.deepEqual(completed['req'], {
      method: 'POST',
      url: '/core/sessions',
      host: 'localhost:80',
      remoteAddress: '127.0.0.1',
    });
    assert.deepEqual(completed['res'], { statusCode: 200 });
    assert.equal(typeof completed['responseTime'], 'number');
    assert.match(String(completed['clientId']), /^cg_/, 'the client, once authenticated');

    const refused = await logged(() =>
      getAccounts(h, { token: 'not-a-token', headers: { 'x-request-id': 'log-trace-0002' } }, customerId),
    );
    assert.ok(refused.some((line) => line['msg'] === 'request refused'));
    for (const line of refused) assert.equal(line['reqId'], 'log-trace-0002', JSON.stringify(line));
  });

  it('names the request on the lines of a core failure that opens the circuit breaker', async () => {
    const bearer = await token();
    const customerId = uniqueId('breaker');
    assertSuccess(await postSession(h, { token: bearer }, formA(customerId, BOB)));
    // The breaker (cockatiel) reads `Date.now()`: mocked here, moved with the harness's clock.
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    simulator.setFaults({ errorRate: 1, errorStatus: 500 });
    // The failure rate counts the calls before: fail until the failing call is the one that opens it.
    let failing: Record<string, unknown>[] = [];
    for (let attempt = 0; attempt < 20 && h.services.coreBreaker!.state === 'closed'; attempt += 1) {
      failing = await logged(async () =>
        assertError(
          await getAccounts(h, { token: bearer, headers: { 'x-request-id': 'log-trace-0003' } }, customerId),
          BAD_GATEWAY,
        ),
      );
    }
    simulator.setFaults({});
    const messages = failing.map((line) => String(line['msg']));
    assert.ok(
      messages.some((msg) => msg.startsWith('core circuit breaker open')),
      messages.join(' | '),
    );
    assert.ok(messages.includes('upstream failure'), messages.join(' | '));
    for (const line of failing) assert.equal(line['reqId'], 'log-trace-0003', JSON.stringify(line));

    h.clock.advance(COOLDOWN_SECONDS);
    mock.timers.tick(COOLDOWN_SECONDS * 1000);
    const probe = await logged(async () =>
      assertSuccess(await getAccounts(h, { token: bearer, headers: { 'x-request-id': 'log-trace-0004' } }, customerId)),
    );
    assert.ok(probe.some((line) => String(line['msg']).startsWith('core circuit breaker closed')));
    for (const line of probe) assert.equal(line['reqId'], 'log-trace-0004', JSON.stringify(line));
    mock.timers.reset();
  });
});
