import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreSimulator, SimulatorError } from '../../src/fakes/core-simulator/core-simulator.js';
import {
  DEMO_CUSTOMERS,
  GENERATED_CUSTOMERS,
  generatedCustomer,
  generatedDemographics,
} from '../../src/fakes/core-simulator/demo-data.js';
import { startSimulatorServer, type RunningSimulatorServer } from '../../src/fakes/core-simulator/simulator-server.js';
import { FakeClock } from '../support/fake-clock.js';

function simulatorError(fn: () => unknown): SimulatorError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof SimulatorError);
    return error;
  }
  assert.fail('expected a SimulatorError');
}

describe('CoreSimulator', () => {
  it('starts quickly with the demo data set and its generated population', () => {
    const started = performance.now();
    const simulator = new CoreSimulator();
    // The generated population is made on demand: building it at start would take seconds.
    assert.ok(performance.now() - started < 250);
    assert.equal(simulator.customers.byKey(`C-${GENERATED_CUSTOMERS.first}`)?.customerKey, 'C-100000');
    assert.equal(simulator.customers.byKey(`C-${GENERATED_CUSTOMERS.last}`)?.customerKey, 'C-999999');
    assert.equal(simulator.customers.byKey('C-1000000'), undefined);
    assert.equal(simulator.customers.byKey('C-099999'), undefined);
    assert.ok(GENERATED_CUSTOMERS.last - GENERATED_CUSTOMERS.first + 1 >= 100_000);
  });

  it('generates the same customer from the same number, with 1 to 3 valid accounts', () => {
    for (const n of [100_000, 100_001, 100_002, 250_050, 999_999]) {
      const customer = generatedCustomer(n)!;
      assert.deepEqual(generatedCustomer(n), customer);
      assert.ok(customer.accounts.length >= 1 && customer.accounts.length <= 3);
      assert.match(customer.socialSecurityNumber, /^900-\d{2}-\d{4}$/);
      assert.ok(customer.accounts.every((account) => account.customerKey === `C-${n}`));
    }
    assert.deepEqual(generatedDemographics(123_456), {
      customerKey: 'C-123456',
      socialSecurityNumber: '900-12-3456',
      accountNumber: '60123456',
      birthDay: generatedDemographics(123_456).birthDay,
    });
  });

  it('compares normalised demographics: SSN digits only, ISO or US birth date', () => {
    const simulator = new CoreSimulator();
    for (const subject of [
      { socialSecurityNumber: '123456789', accountNumber: '70001234', birthDay: '1980-04-12' },
      { socialSecurityNumber: '123-45-6789', accountNumber: '70001234', birthDay: '04/12/1980' },
    ]) {
      assert.equal(simulator.startSession({ kind: 'demographics', ...subject }).customerKey, 'C-1001');
    }
    const generated = generatedDemographics(555_555);
    assert.equal(
      simulator.startSession({
        kind: 'demographics',
        ...generated,
        socialSecurityNumber: generated.socialSecurityNumber.replace(/-/g, ''),
      }).customerKey,
      'C-555555',
    );
    const wrong = simulatorError(() =>
      simulator.startSession({ kind: 'demographics', ...generated, birthDay: '1900-01-01' }),
    );
    assert.deepEqual([wrong.status, wrong.code], [404, 'customer_not_found']);
  });

  it('issues unguessable delegate reference IDs that live for the configured TTL', () => {
    const clock = new FakeClock();
    const simulator = new CoreSimulator({ clock, sessionTtlSeconds: 60 });
    const ids = new Set<string>();
    for (let i = 0; i < 100; i += 1) {
      const session = simulator.startSession({ kind: 'customerKey', customerKey: 'C-1001' });
      assert.match(session.delegateReferenceId, /^[A-Za-z0-9_-]{32}$/, '24 random bytes, base64url');
      assert.equal(session.expiresAt.getTime(), clock.now().getTime() + 60_000);
      ids.add(session.delegateReferenceId);
    }
    assert.equal(ids.size, 100);
    const [first] = ids;
    clock.advance(59);
    assert.equal(simulator.listAccounts(first!).length, DEMO_CUSTOMERS[0]!.accounts.length);
    clock.advance(1);
    assert.equal(simulatorError(() => simulator.listAccounts(first!)).code, 'session_invalid');
    assert.equal(simulator.stats().activeSessions, 0);
    assert.throws(() => new CoreSimulator({ sessionTtlSeconds: 0 }), RangeError);
  });

  it('forgets expired sessions as new ones start, so memory stays bounded', () => {
    const clock = new FakeClock();
    const simulator = new CoreSimulator({ clock, sessionTtlSeconds: 1 });
    for (let i = 0; i < 1000; i += 1) {
      simulator.startSession({ kind: 'customerKey', customerKey: 'C-1001' });
      clock.advance(1);
    }
    assert.ok((simulator as unknown as { sessions: Map<string, unknown> }).sessions.size <= 2);
    assert.deepEqual(simulator.stats(), { sessionsStarted: 1000, accountRequests: 0, activeSessions: 0 });
  });

  it('expireAll invalidates every issued ID and reports how many were active', () => {
    const simulator = new CoreSimulator();
    const one = simulator.startSession({ kind: 'customerKey', customerKey: 'C-1001' });
    simulator.startSession({ kind: 'customerKey', customerKey: 'C-1002' });
    assert.equal(simulator.expireAll(), 2);
    assert.equal(simulatorError(() => simulator.listAccounts(one.delegateReferenceId)).status, 401);
  });

  it('validates faults, replaces them as a whole, and injects errors at the given rate', async () => {
    let roll = 0.4;
    const simulator = new CoreSimulator({ random: () => roll });
    assert.throws(() => simulator.setFaults({ errorRate: 2 }), /errorRate: expected a number from 0 to 1, got 2/);
    assert.throws(() => simulator.setFaults({ errorStatus: 200 }), /errorStatus/);
    assert.throws(() => simulator.setFaults({ latencyMs: -1 }), /latencyMs/);
    simulator.setFaults({ errorRate: 0.5, errorStatus: 503 });
    await assert.rejects(
      simulator.applyFaults(),
      (error: SimulatorError) => error.status === 503 && error.code === 'core_failure',
    );
    roll = 0.6;
    await simulator.applyFaults();
    assert.deepEqual(simulator.setFaults({ latencyMs: 10 }), { latencyMs: 10, errorRate: 0, errorStatus: 500 });
    assert.deepEqual(simulator.setFaults({}), { latencyMs: 0, errorRate: 0, errorStatus: 500 });
  });
});

describe('simulator server (reference core protocol)', () => {
  const apiKey = 'sim-key';
  let server: RunningSimulatorServer;
  const call = async (
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: string; key?: boolean } = {},
  ) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(options.key === false ? {} : { 'x-api-key': apiKey }), ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
  const json = { 'content-type': 'application/json' };

  before(async () => {
    server = await startSimulatorServer({
      simulator: new CoreSimulator({ clock: new FakeClock('2026-03-01T12:00:00Z') }),
      port: 0,
      apiKey,
    });
  });
  after(() => server?.close());

  it('answers POST /v1/sessions with 201 and an expiry in UTC', async () => {
    const response = await call('POST', '/v1/sessions', {
      headers: { ...json, 'x-request-id': 'abc-1' },
      body: JSON.stringify({ customerKey: 'C-1001' }),
    });
    assert.equal(response.status, 201);
    assert.match(response.headers.get('content-type')!, /^application\/json/);
    assert.equal(response.headers.get('x-request-id'), 'abc-1');
    assert.deepEqual(Object.keys(response.body).sort(), ['customerKey', 'delegateReferenceId', 'expiresAt']);
    assert.equal(response.body.expiresAt, '2026-03-01T12:15:00.000Z');
    const accounts = await call('GET', '/v1/accounts', {
      headers: { 'x-delegate-reference-id': response.body.delegateReferenceId },
    });
    assert.equal(accounts.status, 200);
    assert.equal(accounts.body.accounts.length, 3);
  });

  it('requires the API key on protocol calls, with its own error code', async () => {
    for (const headers of [{}, { 'x-api-key': 'wrong' }] as Record<string, string>[]) {
      const response = await call('POST', '/v1/sessions', {
        key: false,
        headers: { ...json, ...headers },
        body: '{"customerKey":"C-1001"}',
      });
      assert.equal(response.status, 403);
      assert.equal(response.body.error, 'api_key_invalid');
    }
    assert.equal(
      (await call('GET', '/v1/accounts', { key: false, headers: { 'x-delegate-reference-id': 'x' } })).body.error,
      'api_key_invalid',
    );
  });

  it('answers the protocol errors with {error, message}', async () => {
    const cases: [string, string, { headers?: Record<string, string>; body?: string }, number, string, RegExp?][] = [
      ['POST', '/v1/sessions', { headers: json, body: '{"customerKey":"C-0"}' }, 404, 'customer_not_found'],
      ['POST', '/v1/sessions', { headers: json, body: '{"customerKey":' }, 400, 'invalid_request', /not valid JSON/],
      [
        'POST',
        '/v1/sessions',
        { headers: { 'content-type': 'text/plain' }, body: '{"customerKey":"C-1001"}' },
        400,
        'invalid_request',
        /Content-Type/,
      ],
      [
        'POST',
        '/v1/sessions',
        { headers: json, body: '{"customerKey":"C-1001","demographics":{}}' },
        400,
        'invalid_request',
        /exactly one/,
      ],
      [
        'POST',
        '/v1/sessions',
        { headers: json, body: '{"demographics":{"socialSecurityNumber":"123456789","birthDay":5,"x":1}}' },
        400,
        'invalid_request',
        /demographics\.x: unknown field; demographics\.accountNumber: missing; demographics\.birthDay: expected a non-empty string, got a number/,
      ],
      [
        'POST',
        '/v1/sessions',
        { headers: json, body: JSON.stringify({ customerKey: 'x'.repeat(70_000) }) },
        413,
        'payload_too_large',
      ],
      ['GET', '/v1/accounts', {}, 400, 'invalid_request', /X-Delegate-Reference-Id/],
      ['GET', '/v1/accounts', { headers: { 'x-delegate-reference-id': 'nope' } }, 401, 'session_invalid'],
      ['GET', '/v1/nothing', {}, 404, 'not_found'],
      // DELETE /v1/sessions ends a session (docs/core-protocol.md#3a-delete-v1sessions--end-a-session-optional): it needs the delegate reference ID.
      ['DELETE', '/v1/sessions', {}, 400, 'invalid_request', /X-Delegate-Reference-Id/],
      ['DELETE', '/v1/sessions', { headers: { 'x-delegate-reference-id': 'nope' } }, 401, 'session_invalid'],
      ['PUT', '/v1/sessions', {}, 405, 'method_not_allowed'],
    ];
    for (const [method, path, options, status, code, message] of cases) {
      const response = await call(method, path, options);
      assert.equal(response.status, status, `${method} ${path} ${options.body?.slice(0, 60)}`);
      assert.equal(response.body.error, code);
      assert.equal(typeof response.body.message, 'string');
      if (message) assert.match(response.body.message, message);
    }
    assert.equal((await call('PUT', '/v1/sessions')).headers.get('allow'), 'POST, DELETE');
  });

  it('ends a session with DELETE /v1/sessions and forgets a customer with POST /_sim/customers/forget', async () => {
    const start = () => call('POST', '/v1/sessions', { headers: json, body: '{"customerKey":"C-1002"}' });
    const first = (await start()).body.delegateReferenceId as string;
    const second = (await start()).body.delegateReferenceId as string;
    const ended = await call('DELETE', '/v1/sessions', { headers: { 'x-delegate-reference-id': first } });
    assert.equal(ended.status, 204);
    assert.equal(
      (await call('GET', '/v1/accounts', { headers: { 'x-delegate-reference-id': first } })).status,
      401,
      'the ended session',
    );
    assert.equal(
      (await call('GET', '/v1/accounts', { headers: { 'x-delegate-reference-id': second } })).status,
      200,
      'the other session lives on',
    );
    const forgot = await call('POST', '/_sim/customers/forget', {
      key: false,
      headers: json,
      body: '{"customerKey":"C-1002"}',
    });
    assert.deepEqual(forgot.body, { customerKey: 'C-1002', sessionsEnded: 1 });
    assert.equal(
      (await call('GET', '/v1/accounts', { headers: { 'x-delegate-reference-id': second } })).body.error,
      'session_invalid',
    );
    assert.equal((await start()).body.error, 'customer_not_found', 'new sessions refused as unknown');
    assert.equal((await call('POST', '/_sim/customers/forget', { key: false, headers: json, body: '{}' })).status, 400);
  });

  it('serves /_sim/* without the API key, untouched by faults', async () => {
    const set = await call('POST', '/_sim/faults', {
      key: false,
      headers: json,
      body: '{"errorRate":1,"errorStatus":502}',
    });
    assert.deepEqual(set.body, { latencyMs: 0, errorRate: 1, errorStatus: 502 });
    const stats = await call('GET', '/_sim/stats', { key: false });
    assert.equal(stats.status, 200);
    assert.deepEqual(Object.keys(stats.body).sort(), ['accountRequests', 'activeSessions', 'sessionsStarted']);
    const failing = await call('POST', '/v1/sessions', { headers: json, body: '{"customerKey":"C-1001"}' });
    assert.deepEqual([failing.status, failing.body.error], [502, 'core_failure']);
    assert.deepEqual((await call('GET', '/_sim/faults', { key: false })).body, {
      latencyMs: 0,
      errorRate: 1,
      errorStatus: 502,
    });
    assert.deepEqual((await call('POST', '/_sim/faults', { key: false, headers: json, body: '{}' })).body, {
      latencyMs: 0,
      errorRate: 0,
      errorStatus: 500,
    });
    assert.equal((await call('POST', '/v1/sessions', { headers: json, body: '{"customerKey":"C-1001"}' })).status, 201);
    const expired = await call('POST', '/_sim/sessions/expire', { key: false });
    assert.equal(expired.status, 200);
    assert.equal(typeof expired.body.expired, 'number');
  });

  it('rejects bad faults naming the field', async () => {
    const response = await call('POST', '/_sim/faults', {
      key: false,
      headers: json,
      body: '{"latencyMs":"slow","errorRatio":1}',
    });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'invalid_request');
    assert.match(response.body.message, /errorRatio: unknown field/);
    assert.match(response.body.message, /latencyMs: expected a whole number of milliseconds/);
  });
});
