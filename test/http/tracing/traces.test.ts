/**
 * OpenTelemetry tracing end to end (docs/operations.md#observability), on PGlite and PostgreSQL,
 * against the tests' own OTLP receiver (OTLP/JSON here; protobuf in `protobuf.test.ts`), a core
 * (the simulator over HTTP) and a webhook receiver that both record the headers they get:
 * - a caller's `traceparent` is continued, a malformed one starts a new trace (never a 4xx);
 * - one server span per request with its attributes, the error code on a failure;
 * - client spans for the core calls, the `traceparent` the core receives naming them; database
 *   spans and the token signing inside the request; a span per webhook attempt, its
 *   `traceparent` at the receiver;
 * - every log line written inside a request carries the span's `trace_id` and `span_id`;
 * - nothing secret or personal in any span, attribute or resource: a whole scenario (token,
 *   Form A and Form B registrations, accounts, a renewal, a webhook) is scanned for every
 *   secret and personal value it used.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import { simulatorHandler } from '../../../src/fakes/core-simulator/simulator-server.js';
import { createLogger } from '../../../src/adapters/logging/logger.js';
import { adminOperations, executeAdminOperation } from '../../../src/server/admin-operations.js';
import { BACKENDS } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { OtlpReceiver, parseTraceparent, SPAN_KIND, type ReceivedSpan } from '../../support/otlp-receiver.js';
import { TestReceiver } from '../webhooks/receiver.js';
import {
  ADA,
  BOB,
  assertSuccess,
  formA,
  formB,
  getAccounts,
  postSession,
  uniqueId,
} from '../gateway/gateway-requests.js';

const TTL_SECONDS = 300;

/** The simulator over HTTP, recording what each request carried. */
class RecordingCoreServer {
  readonly requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders; answer: string }> = [];
  private server: Server | undefined;
  url = '';

  /** The simulator behind the recording: `expireAll()` makes the core reject every session it issued. */
  readonly simulator = new CoreSimulator({ sessionTtlSeconds: TTL_SECONDS });

  async start(): Promise<this> {
    const handle = simulatorHandler(this.simulator);
    this.server = createServer((req, res) => {
      const record = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, answer: '' };
      this.requests.push(record);
      const end = res.end.bind(res) as (chunk?: unknown) => typeof res;
      res.end = ((chunk?: unknown) => {
        if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) record.answer = chunk.toString();
        return end(chunk);
      }) as typeof res.end;
      handle(req, res);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** Log lines as JSON objects. */
class LogLines extends Writable {
  readonly lines: Array<Record<string, unknown>> = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n'))
      if (line.trim() !== '') this.lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  }
}

const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_PARENT = '00f067aa0ba902b7';

for (const backend of BACKENDS) {
  describe(`tracing over OTLP/JSON (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let collector: OtlpReceiver;
    let core: RecordingCoreServer;
    let hooks: TestReceiver;
    let logs: LogLines;
    let client: { id: string; secret: string; platform: string };
    let token: string;
    /** Every secret and personal value the scenario used, none of which may reach a span. */
    const secrets = new Set<string>();

    const spansNamed = (name: string) => collector.spans.filter((span) => span.name === name);
    const serverSpanOf = (requestId: string) => {
      const line = logs.lines.find((entry) => entry['reqId'] === requestId && entry['msg'] === 'request completed');
      assert.ok(line, `the request ${requestId} was logged`);
      const span = collector.spans.find((candidate) => candidate.spanId === line['span_id']);
      assert.ok(span, `the span of the request ${requestId} was exported`);
      return span;
    };
    const childrenOf = (parent: ReceivedSpan) => collector.spans.filter((span) => span.parentSpanId === parent.spanId);
    const flush = () => h.services.tracing!.flush();

    before(async () => {
      collector = await new OtlpReceiver().start();
      core = await new RecordingCoreServer().start();
      hooks = await new TestReceiver().start();
      logs = new LogLines();
      h = await createHarness(backend, {
        env: {
          CORE_URL: core.url,
          COREGATE_CORE_API_KEY: 'core-api-key-never-traced',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=collector-secret-never-traced',
          OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
          OTEL_SERVICE_NAME: 'coregate-under-test',
        },
        logger: createLogger('info', logs, { traceIds: true }),
      });
      h.clock.set(new Date());
      client = await h.client({ platform: 'traced' });
      token = await h.token(client);
      secrets.add(client.secret).add(token).add('core-api-key-never-traced').add('collector-secret-never-traced');
    });
    after(async () => {
      await h?.close();
      await Promise.all([collector?.close(), core?.close(), hooks?.close()]);
    });

    it('continues an incoming traceparent and names the route, the caller and the status', async () => {
      const customerId = uniqueId('trace-a');
      secrets.add(customerId);
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      const answer = await getAccounts(
        h,
        { token, headers: { traceparent: `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01` } },
        customerId,
      );
      for (const account of assertSuccess<Array<Record<string, unknown>>>(answer))
        for (const value of Object.values(account))
          if (typeof value === 'string' && value.length >= 4) secrets.add(value);
      await flush();

      const span = serverSpanOf(answer.headers['x-request-id'] as string);
      assert.equal(span.traceId, INCOMING_TRACE);
      assert.equal(span.parentSpanId, INCOMING_PARENT);
      assert.equal(span.name, 'GET /core/accounts');
      assert.equal(span.kind, SPAN_KIND.server);
      assert.deepEqual(
        {
          method: span.attributes['http.request.method'],
          route: span.attributes['http.route'],
          status: span.attributes['http.response.status_code'],
          institution: span.attributes['coregate.institution'],
          platform: span.attributes['coregate.platform'],
        },
        { method: 'GET', route: '/core/accounts', status: 200, institution: 'default', platform: 'traced' },
      );
      assert.equal(span.attributes['coregate.error.code'], undefined);
      assert.equal(span.resource['service.name'], 'coregate-under-test');
      assert.equal(span.resource['deployment.environment.name'], 'test');
    });

    it('sends the core the client span of each core call as traceparent, under the server span', async () => {
      const customerId = uniqueId('trace-b');
      secrets.add(customerId);
      const before = core.requests.length;
      const answer = await postSession(h, { token }, formB(customerId, BOB.customerKey));
      assertSuccess(answer);
      await flush();
      const server = serverSpanOf(answer.headers['x-request-id'] as string);
      const coreSpan = childrenOf(server).find((span) => span.name === 'core startSession');
      assert.ok(coreSpan, 'a core span under the request');
      assert.equal(coreSpan.kind, SPAN_KIND.client);
      assert.equal(coreSpan.attributes['coregate.core.outcome'], 'ok');
      const sent = core.requests.slice(before).find((request) => request.method === 'POST');
      assert.deepEqual(parseTraceparent(sent?.headers['traceparent']), {
        traceId: server.traceId,
        parentId: coreSpan.spanId,
      });
      const database = childrenOf(server).filter((span) => span.name.startsWith('db '));
      assert.ok(database.length > 0, 'the database statements the request waited on');
      for (const span of database) assert.equal(span.attributes['db.system.name'], 'postgresql');
    });

    it('traces token signing under the token request', async () => {
      const answer = await h.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: {
          authorization: basic(client.id, client.secret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: 'grant_type=client_credentials',
      });
      assert.equal(answer.statusCode, 200);
      secrets.add(answer.json<{ access_token: string }>().access_token);
      await flush();
      const server = serverSpanOf(answer.headers['x-request-id'] as string);
      assert.equal(server.name, 'POST /oauth2/token');
      assert.equal(server.attributes['coregate.platform'], 'traced');
      assert.ok(childrenOf(server).some((span) => span.name === 'token sign'));
    });

    it('starts a new trace for a malformed traceparent and names the error code of a failure', async () => {
      const answer = await getAccounts(h, { token, headers: { traceparent: '00-not-a-trace-01' } }, 'nobody-here');
      assert.equal(answer.statusCode, 404);
      secrets.add('nobody-here');
      await flush();
      const span = serverSpanOf(answer.headers['x-request-id'] as string);
      assert.match(span.traceId, /^[0-9a-f]{32}$/);
      assert.equal(span.parentSpanId, '');
      assert.equal(span.attributes['http.response.status_code'], 404);
      assert.equal(span.attributes['coregate.error.code'], answer.json<{ data: { reason: string } }>().data.reason);
    });

    it('traces a renewal: the new core session is started under the accounts request', async () => {
      const customerId = uniqueId('trace-r');
      secrets.add(customerId);
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      // The core rejects the session it issued: coregate renews it under the request. (The
      // core keeps its own clock, so moving coregate's alone would make every new session look expired.)
      core.simulator.expireAll();
      const answer = await getAccounts(h, { token }, customerId);
      assertSuccess(answer);
      await flush();
      const server = serverSpanOf(answer.headers['x-request-id'] as string);
      const names = childrenOf(server).map((span) => span.name);
      assert.ok(names.includes('core startSession'), `renewed under the request: ${names.join(', ')}`);
      assert.ok(names.includes('core listAccounts'));
    });

    it('traces each webhook attempt and sends its traceparent to the receiver', async () => {
      const added = await executeAdminOperation(adminOperations(h.services), 'webhooks.add', {
        platform: 'traced',
        url: hooks.url,
      });
      secrets.add(added.secret).add(added.secret.slice('whsec_'.length));
      const customerId = uniqueId('trace-w');
      secrets.add(customerId);
      assertSuccess(await postSession(h, { token }, formA(customerId, ADA)));
      assert.ok((await h.services.webhookDispatcher.runOnce()) >= 1);
      await flush();
      const received = hooks.received.at(-1)!;
      const sent = parseTraceparent(received.headers['traceparent']);
      assert.ok(sent, 'the receiver got a traceparent');
      const span = collector.spans.find((candidate) => candidate.spanId === sent.parentId);
      assert.ok(span, 'the span of the attempt was exported');
      assert.equal(span.name, 'webhook deliver');
      assert.equal(span.traceId, sent.traceId);
      assert.equal(span.kind, SPAN_KIND.client);
      assert.equal(span.attributes['http.response.status_code'], 204);
      assert.equal(span.attributes['server.address'], '127.0.0.1');
    });

    it('writes the span ids into every log line of a traced request', () => {
      const lines = logs.lines.filter((line) => line['msg'] === 'request completed');
      assert.ok(lines.length >= 6);
      for (const line of lines) {
        assert.match(String(line['trace_id']), /^[0-9a-f]{32}$/, JSON.stringify(line));
        assert.match(String(line['span_id']), /^[0-9a-f]{16}$/);
      }
      const ids = new Set(collector.spans.map((span) => span.spanId));
      assert.ok(
        lines.every((line) => ids.has(String(line['span_id']))),
        'the ids of exported spans',
      );
    });

    it('puts no secret, token, delegate reference ID, personal field or customerId in any span', () => {
      for (const customer of [ADA, BOB]) {
        const digits = customer.socialSecurityNumber.replaceAll('-', '');
        secrets
          .add(digits)
          .add(`${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`)
          .add(customer.accountNumber)
          .add(customer.birthDay);
      }
      for (const request of core.requests) {
        const delegate = request.headers['x-delegate-reference-id'];
        if (typeof delegate === 'string') secrets.add(delegate);
        const started = /"delegateReferenceId":"([^"]+)"/.exec(request.answer)?.[1];
        if (started !== undefined) secrets.add(started);
      }
      assert.ok(collector.bodies.length > 0 && spansNamed('GET /core/accounts').length > 0);
      const exported = collector.bodies.join('\n');
      for (const secret of secrets) assert.ok(!exported.includes(secret), `a span holds ${secret.slice(0, 4)}…`);
      for (const span of collector.spans)
        for (const [key, value] of Object.entries(span.attributes))
          assert.ok(!(typeof value === 'string' && value.includes('?')), `no URL with a query: ${key}`);
    });
  });
}
