/**
 * `registerCustomers` against a small local node:http server that answers like
 * coregate, where a running coregate cannot be made to answer on demand: how many
 * registrations are in flight, how lazily the source is read, 429 and 503 with
 * `Retry-After` (the batch pauses, halves what it keeps in flight and sends the item
 * again), per-item errors, errors about the client that end the batch, and stopping it.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  CoregateClient,
  CoregateError,
  type BulkRegistrationItem,
  type BulkRegistrationProgress,
  type BulkRegistrationResult,
} from '@coregate/client';
import { listenLocally } from '../support/local-server.js';
import { countingFetch } from './counting-fetch.js';

interface Arrival {
  readonly at: number;
  /** Requests in flight at the server when this one arrived, itself included. */
  readonly inFlight: number;
  readonly body: { registration?: { customerId?: string }; customer?: { customerKey?: string } };
}

/**
 * What the stand-in answers to one registration: status, body and headers, after `heldUntil`
 * (when given) has settled and then `delayMs`.
 */
interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
  readonly delayMs?: number;
  readonly heldUntil?: Promise<void> | undefined;
}

const success = (customerId: string | undefined, customerKey: string | undefined) => ({
  name: 'Success',
  className: 'Success',
  message: 'Success',
  code: 200,
  data: { customerId, customerKey },
});
const envelope = (status: number, name: string, className: string, reason: string) => ({
  name,
  className,
  message: reason,
  code: status,
  data: { reason, requestId: 'r' },
});

function json(response: ServerResponse, answer: Answer): void {
  response
    .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
    .end(JSON.stringify(answer.body));
}

function* customers(count: number, from = 0): Generator<BulkRegistrationItem> {
  for (let index = from; index < from + count; index++)
    yield { customerId: `bulk-${index}`, customer: { customerKey: `C-${100000 + index}` } };
}

/** `items` behind a generator; `closed` resolves once the batch has closed it (its `finally` ran). */
function closable(items: Iterable<BulkRegistrationItem>): {
  items: Generator<BulkRegistrationItem>;
  closed: Promise<void>;
} {
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  function* source(): Generator<BulkRegistrationItem> {
    try {
      yield* items;
    } finally {
      markClosed();
    }
  }
  return { items: source(), closed };
}

async function collect(results: AsyncIterable<BulkRegistrationResult>): Promise<BulkRegistrationResult[]> {
  const all: BulkRegistrationResult[] = [];
  for await (const result of results) all.push(result);
  return all;
}

// 31 s pinned to one core of a loaded 2-core host (two tests wait out a real Retry-After of
// 1 s); 90 s leaves a host half as fast room.
describe('registerCustomers against a local stand-in for coregate', { timeout: 90_000 }, () => {
  let server: Server;
  let baseUrl: string;
  let stop: () => void;
  let arrivals: Arrival[] = [];
  let inFlight = 0;
  let tokenRequests = 0;
  let answer: (arrival: Arrival, count: number) => Answer;
  let token: () => Answer;

  before(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/oauth2/token') {
          tokenRequests += 1;
          json(response, token());
          return;
        }
        inFlight += 1;
        const arrival: Arrival = {
          at: Date.now(),
          inFlight,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Arrival['body'],
        };
        arrivals.push(arrival);
        const reply = answer(arrival, arrivals.length);
        void (reply.heldUntil ?? Promise.resolve()).then(() =>
          setTimeout(() => {
            inFlight -= 1;
            if (!response.destroyed) json(response, reply);
          }, reply.delayMs ?? 5),
        );
      });
    });
    ({ baseUrl, close: stop } = await listenLocally(server));
  });

  after(() => stop());

  beforeEach(() => {
    arrivals = [];
    inFlight = 0;
    tokenRequests = 0;
    token = () => ({ status: 200, body: { access_token: 'token-1', token_type: 'Bearer', expires_in: 3600 } });
    answer = (arrival) => ({
      status: 200,
      body: success(arrival.body.registration?.customerId, arrival.body.customer?.customerKey),
    });
  });

  const client = () => new CoregateClient({ baseUrl, clientId: 'cg_local', clientSecret: 'cgs_local-secret' });
  const maxInFlight = (list: readonly Arrival[]) => Math.max(0, ...list.map((arrival) => arrival.inFlight));

  it('keeps `concurrency` registrations in flight, one token for all, one result per item', async () => {
    // The first answers are held until the eighth registration arrives, so reaching 8 does
    // not depend on how fast this machine is; a ninth before any answer would show as 9.
    let releaseFirst!: () => void;
    const firstEightArrived = new Promise<void>((resolve) => (releaseFirst = resolve));
    answer = (arrival, count) => {
      if (count === 8) releaseFirst();
      return {
        status: 200,
        body: success(arrival.body.registration?.customerId, arrival.body.customer?.customerKey),
        heldUntil: count <= 8 ? firstEightArrived : undefined,
      };
    };
    const results = await collect(client().registerCustomers(customers(200), { concurrency: 8 }));
    assert.equal(results.length, 200);
    assert.ok(results.every((result) => result.ok && result.attempts === 1));
    assert.deepEqual(
      results.map((result) => result.index).sort((a, b) => a - b),
      Array.from({ length: 200 }, (_, index) => index),
    );
    const byIndex = new Map(results.map((result) => [result.index, result]));
    assert.deepEqual(byIndex.get(42), {
      index: 42,
      customerId: 'bulk-42',
      attempts: 1,
      ok: true,
      customerKey: 'C-100042',
    });
    assert.equal(maxInFlight(arrivals), 8, 'never more than 8 at once, and 8 reached');
    assert.equal(tokenRequests, 1);
    // Both forms of an item become the same wire body.
    assert.deepEqual(arrivals.find((arrival) => arrival.body.registration?.customerId === 'bulk-42')?.body, {
      customer: { customerKey: 'C-100042' },
      registration: { customerId: 'bulk-42' },
    });
  });

  it('takes wire bodies and any async iterable, and reads it lazily', async () => {
    let pulled = 0;
    let read = 0;
    let ahead = 0;
    async function* source(): AsyncGenerator<BulkRegistrationItem> {
      for (let index = 0; index < 300; index++) {
        pulled += 1;
        ahead = Math.max(ahead, pulled - read);
        yield { customer: { customerKey: `C-${100000 + index}` }, registration: { customerId: `wire-${index}` } };
      }
    }
    const batch = client().registerCustomers(source(), { concurrency: 4 });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(pulled, 0, 'nothing is read before the iteration starts');
    for await (const result of batch) {
      read += 1;
      assert.ok(result.ok);
      assert.match(result.customerId ?? '', /^wire-\d+$/);
      // A slow consumer: the batch must not run ahead of it and buffer the source.
      if (read % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 30));
    }
    assert.equal(read, 300);
    assert.ok(ahead <= 4 * 3 + 1, `the source was read at most ${ahead} items ahead of the consumer`);
  });

  it('waits out a 429 with Retry-After: the batch pauses, halves its concurrency, and sends the item again', async () => {
    // Driven by counts, not by how fast this machine runs: registrations 21 to 28 (the
    // eight in flight once 20 are answered) are held until the 28th is in, then all refused
    // with 429, so the eight refusals are one round and halve the limit once. The first
    // four sent after the pause are held until the fourth is in: a fifth before any of
    // their answers would show as five in flight.
    let refuse!: () => void;
    const allRefusedIn = new Promise<void>((resolve) => (refuse = resolve));
    let releaseResumed!: () => void;
    const firstResumedIn = new Promise<void>((resolve) => (releaseResumed = resolve));
    answer = (arrival, count) => {
      if (count === 28) refuse();
      if (count === 32) releaseResumed();
      if (count > 20 && count <= 28)
        return {
          status: 429,
          body: envelope(429, 'TooManyRequests', 'too-many-requests', 'rate_limited'),
          headers: { 'retry-after': '1' },
          heldUntil: allRefusedIn,
        };
      return {
        status: 200,
        body: success(arrival.body.registration?.customerId, arrival.body.customer?.customerKey),
        heldUntil: count > 28 && count <= 32 ? firstResumedIn : undefined,
      };
    };
    const progress: BulkRegistrationProgress[] = [];
    const started = Date.now();
    const results = await collect(
      client().registerCustomers(customers(100), { concurrency: 8, onProgress: (report) => progress.push(report) }),
    );
    assert.equal(results.length, 100);
    assert.ok(
      results.every((result) => result.ok),
      'a 429 never fails an item',
    );
    assert.equal(results.filter((result) => result.attempts === 2).length, 8, 'each refused item sent once more');
    assert.ok(Date.now() - started >= 1000, 'Retry-After was waited out');
    const pause = progress.find((report) => report.pausedUntil !== undefined);
    assert.ok(pause, 'the pause is reported');
    assert.ok(arrivals[28]!.at >= pause.pausedUntil!, 'nothing was sent before the pause ended');
    assert.deepEqual(
      arrivals
        .slice(28, 36)
        .map((arrival) => arrival.body.registration?.customerId)
        .sort(),
      arrivals
        .slice(20, 28)
        .map((arrival) => arrival.body.registration?.customerId)
        .sort(),
      'the refused items are sent first after the pause',
    );
    assert.equal(
      maxInFlight(arrivals.slice(28, 33)),
      4,
      'after the pause half as many in flight: four, and a fifth only after an answer',
    );
    const last = progress.at(-1)!;
    assert.deepEqual(
      { done: last.done, succeeded: last.succeeded, failed: last.failed, throttled: last.throttled },
      { done: 100, succeeded: 100, failed: 0, throttled: 8 },
    );
    assert.ok(
      progress.some((report) => report.pausedUntil !== undefined && report.concurrency === 4),
      'the pause and the halving are reported',
    );
  });

  it("a 503 with Retry-After is waited out too; a 503 without it is the item's failure", async () => {
    answer = (arrival, count) => {
      const customerId = arrival.body.registration?.customerId;
      if (customerId === 'bulk-3')
        return { status: 503, body: envelope(503, 'Unavailable', 'unavailable', 'unavailable') };
      if (count <= 2)
        return {
          status: 503,
          body: envelope(503, 'Unavailable', 'unavailable', 'unavailable'),
          headers: { 'retry-after': '1' },
        };
      return { status: 200, body: success(customerId, arrival.body.customer?.customerKey) };
    };
    const results = await collect(client().registerCustomers(customers(10), { concurrency: 2 }));
    const failed = results.filter((result) => !result.ok);
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.customerId, 'bulk-3');
    assert.ok(!failed[0]!.ok && failed[0]!.error instanceof CoregateError && failed[0]!.error.status === 503);
    assert.equal(results.filter((result) => result.ok && result.attempts === 2).length, 2);
  });

  it("every other error is that item's result and the batch goes on", async () => {
    const errors: Record<string, Answer> = {
      'bulk-1': {
        status: 400,
        body: {
          ...envelope(400, 'BadRequest', 'bad-request', 'invalid_request'),
          data: {
            reason: 'invalid_request',
            errors: [{ path: '/customer/customerKey', message: 'must not be empty' }],
          },
        },
      },
      'bulk-2': { status: 409, body: envelope(409, 'Conflict', 'conflict', 'customer_id_taken') },
      'bulk-3': {
        status: 401,
        body: envelope(401, 'NotAuthenticated', 'not-authenticated', 'customer_not_recognised'),
      },
      'bulk-4': { status: 502, body: envelope(502, 'BadGateway', 'bad-gateway', 'core_failed') },
      'bulk-5': { status: 500, body: 'not json' },
    };
    answer = (arrival) =>
      errors[arrival.body.registration?.customerId ?? ''] ?? {
        status: 200,
        body: success(arrival.body.registration?.customerId, arrival.body.customer?.customerKey),
      };
    const results = await collect(client().registerCustomers(customers(20), { concurrency: 4 }));
    assert.equal(results.length, 20);
    const failures = Object.fromEntries(
      results.flatMap((result) =>
        result.ok ? [] : [[result.customerId, [result.error.status, result.error.data['reason'], result.attempts]]],
      ),
    );
    assert.deepEqual(failures, {
      'bulk-1': [400, 'invalid_request', 1],
      'bulk-2': [409, 'customer_id_taken', 1],
      'bulk-3': [401, 'customer_not_recognised', 1],
      'bulk-4': [502, 'core_failed', 1],
      'bulk-5': [500, undefined, 1],
    });
    assert.equal(arrivals.length, 20, 'nothing but 429/503 is sent twice');
  });

  it('an error about the client ends the batch: refused credentials are thrown, not repeated for every item', async () => {
    token = () => ({
      status: 400,
      body: { error: 'invalid_client', error_description: 'client authentication failed' },
    });
    const seen: BulkRegistrationResult[] = [];
    const error = await (async () => {
      for await (const result of client().registerCustomers(customers(1000), { concurrency: 8 })) seen.push(result);
    })().catch((caught: unknown) => caught);
    assert.ok(error instanceof CoregateError, String(error));
    assert.equal(error.error, 'invalid_client');
    assert.equal(seen.length, 0);
    assert.equal(tokenRequests, 1, 'the concurrent first registrations shared one token request');
    assert.equal(arrivals.length, 0);
  });

  it('a token coregate refuses (401 invalid_token, after one fresh token) and a 403 end the batch', async () => {
    const cases: Array<[number, string, Record<string, string>]> = [
      [401, 'invalid_token', { 'www-authenticate': 'Bearer error="invalid_token"' }],
      [403, 'insufficient_scope', {}],
    ];
    for (const [status, reason, headers] of cases) {
      arrivals = [];
      answer = () => ({
        status,
        body: envelope(
          status,
          status === 401 ? 'NotAuthenticated' : 'Forbidden',
          status === 401 ? 'not-authenticated' : 'forbidden',
          reason,
        ),
        headers,
      });
      const error = await collect(client().registerCustomers(customers(1000), { concurrency: 4 })).catch(
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof CoregateError, String(error));
      assert.equal(error.data['reason'], reason);
      assert.ok(arrivals.length <= 8, `${reason}: stopped after the registrations in flight (${arrivals.length} sent)`);
    }
  });

  it('the AbortSignal stops the batch: the iterator throws its reason and the source is closed', async () => {
    answer = (arrival) => ({
      status: 200,
      body: success(arrival.body.registration?.customerId, arrival.body.customer?.customerKey),
      delayMs: 20,
    });
    const source = closable(customers(10_000));
    const controller = new AbortController();
    const seen: BulkRegistrationResult[] = [];
    // Counted where they are sent: a request sent before the abort may reach the stand-in after it.
    const counter = countingFetch();
    const counted = new CoregateClient({
      baseUrl,
      clientId: 'cg_local',
      clientSecret: 'cgs_local-secret',
      fetch: counter.fetch,
    });
    const error = await (async () => {
      for await (const result of counted.registerCustomers(source.items, {
        concurrency: 4,
        signal: controller.signal,
      })) {
        seen.push(result);
        if (seen.length === 10) controller.abort(new Error('operator stopped the import'));
      }
    })().catch((caught: unknown) => caught);
    assert.equal((error as Error).message, 'operator stopped the import');
    // The batch closes its source once stopped: the test waits for that, however long it takes.
    await source.closed;
    const sent = counter.count('/core/sessions');
    assert.ok(sent < 30, `nothing new was sent after the abort (${sent} sent)`);
    // Checking that nothing more is sent needs a quiet moment; a late send can only show as a
    // failure here, never a pass made by timing.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(counter.count('/core/sessions'), sent);
  });

  it('an AbortSignal already aborted sends nothing', async () => {
    const error = await collect(
      client().registerCustomers(customers(10), { signal: AbortSignal.abort(new Error('too late')) }),
    ).catch((caught: unknown) => caught);
    assert.equal((error as Error).message, 'too late');
    assert.equal(arrivals.length, 0);
  });

  it('break stops the batch and closes the source', async () => {
    const source = closable(customers(10_000));
    let read = 0;
    for await (const result of client().registerCustomers(source.items, { concurrency: 4 })) {
      assert.ok(result.ok);
      if (++read === 5) break;
    }
    await source.closed;
    assert.ok(arrivals.length < 20, `${arrivals.length} sent`);
  });

  it('refuses a concurrency out of range and a source that is not iterable', () => {
    assert.throws(() => client().registerCustomers(customers(1), { concurrency: 0 }), RangeError);
    assert.throws(() => client().registerCustomers(customers(1), { concurrency: 1.5 }), RangeError);
    assert.throws(() => client().registerCustomers(42 as never), TypeError);
  });

  it('a source that throws ends the batch with its error', async () => {
    function* source(): Generator<BulkRegistrationItem> {
      yield* customers(5);
      throw new Error('the file went away');
    }
    const seen: BulkRegistrationResult[] = [];
    const error = await (async () => {
      for await (const result of client().registerCustomers(source(), { concurrency: 2 })) seen.push(result);
    })().catch((caught: unknown) => caught);
    assert.equal((error as Error).message, 'the file went away');
    assert.ok(seen.length <= 5);
  });
});
