/**
 * `registerCustomers` against a real coregate listening on a socket, with the built-in
 * simulator as its core: hundreds of registrations at once, each with its own result
 * and exactly one core session (the simulator's statistics); the outcomes an
 * onboarding meets (idempotent repeat, 409, unknown customer, a bad body); a core that
 * answers 429, and coregate's own rate limit, slowing the batch without failing an
 * item; stopping it; and the onboarding example of docs/integrators.md, run as written.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import {
  CoregateClient,
  type BulkRegistrationItem,
  type BulkRegistrationProgress,
  type BulkRegistrationResult,
} from '@coregate/client';
import { generatedDemographics } from '../../src/fakes/core-simulator/demo-data.js';
import { countingFetch } from './counting-fetch.js';
import { QUICKEST_BACKEND } from '../support/backends.js';
import { guideSnippet, REPOSITORY_ROOT } from '../support/guide-snippet.js';
import { createHarness, type Harness } from '../support/harness.js';
import { associationCount } from '../http/gateway/gateway-requests.js';

/** The wire body of an item in `registerCustomer`'s form. */
function registrationBody(item: BulkRegistrationItem): unknown {
  const { customerId, ...subject } = item as { customerId: string };
  return { ...subject, registration: { customerId } };
}

/** Form B items for generated customers `C-<first>` … (the simulator's population starts at 100000). */
function* formB(prefix: string, first: number, count: number): Generator<BulkRegistrationItem> {
  for (let n = first; n < first + count; n++)
    yield { customerId: `${prefix}-${n}`, customer: { customerKey: `C-${n}` } };
}

async function collect(results: AsyncIterable<BulkRegistrationResult>): Promise<BulkRegistrationResult[]> {
  const all: BulkRegistrationResult[] = [];
  for await (const result of results) all.push(result);
  return all;
}

interface Listening {
  readonly harness: Harness;
  readonly cg: CoregateClient;
  readonly platform: string;
  readonly baseUrl: string;
  readonly credentials: { readonly id: string; readonly secret: string };
}

async function listening(env: Record<string, string> = {}): Promise<Listening> {
  const harness = await createHarness(QUICKEST_BACKEND, { env });
  await harness.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(harness.app.server.address() as AddressInfo).port}`;
  const credentials = await harness.client({ platform: 'bulk-platform' });
  return {
    harness,
    baseUrl,
    credentials,
    cg: new CoregateClient({ baseUrl, clientId: credentials.id, clientSecret: credentials.secret }),
    platform: credentials.platform,
  };
}

describe('registerCustomers against a running coregate', { skip: QUICKEST_BACKEND.skip, timeout: 120_000 }, () => {
  let harness: Harness;
  let cg: CoregateClient;
  let platform: string;
  let served: Listening;
  const sessionsStarted = () => harness.services.simulator!.stats().sessionsStarted;
  const activeSessions = () => harness.services.simulator!.stats().activeSessions;

  before(async () => {
    served = await listening();
    ({ harness, cg, platform } = served);
  });

  after(() => harness?.close());

  it('registers 400 customers 16 at a time: a result and exactly one core session each, progress to the end', async () => {
    const sessions = sessionsStarted();
    const rows = await associationCount(harness, platform);
    const progress: BulkRegistrationProgress[] = [];
    const results = await collect(
      cg.registerCustomers(formB('many', 200_000, 400), {
        concurrency: 16,
        onProgress: (report) => progress.push(report),
      }),
    );
    assert.equal(results.length, 400);
    assert.deepEqual(
      results.filter((result) => !result.ok),
      [],
    );
    for (const result of results) {
      assert.ok(result.ok);
      assert.equal(result.customerId, `many-${200_000 + result.index}`);
      assert.equal(result.customerKey, `C-${200_000 + result.index}`);
      assert.equal(result.attempts, 1);
    }
    assert.equal(sessionsStarted() - sessions, 400, 'one core session per customer');
    assert.equal((await associationCount(harness, platform)) - rows, 400);
    const last = progress.at(-1)!;
    assert.deepEqual(
      {
        done: last.done,
        succeeded: last.succeeded,
        failed: last.failed,
        throttled: last.throttled,
        inFlight: last.inFlight,
      },
      { done: 400, succeeded: 400, failed: 0, throttled: 0, inFlight: 0 },
    );
    assert.equal(
      Math.max(...progress.map((report) => report.inFlight)),
      15,
      'sixteen in flight (the one settling not counted)',
    );
    assert.deepEqual((await cg.getCustomer('many-200123')).customerKey, 'C-200123');
  });

  it("reports each outcome an onboarding meets as that item's result, and goes on", async () => {
    await cg.registerCustomer({ customerId: 'known-1', customer: { customerKey: 'C-300001' } });
    const ada = generatedDemographics(300_002);
    const items: BulkRegistrationItem[] = [
      { customerId: 'known-1', customer: { customerKey: 'C-300001' } },
      { customerId: 'known-1', customer: { customerKey: 'C-300009' } },
      { customerId: 'unknown-customer', customer: { customerKey: 'C-0000000' } },
      { customer: { customerKey: 'C-300003' }, registration: { customerId: 'has blanks' } },
      {
        demographics: {
          socialSecurityNumber: ada.socialSecurityNumber,
          accountNumber: ada.accountNumber,
          birthDay: ada.birthDay,
        },
        registration: { customerId: 'by-demographics' },
      },
    ];
    const sessions = sessionsStarted();
    const active = activeSessions();
    const results = await collect(cg.registerCustomers(items, { concurrency: 2 }));
    const byIndex = new Map(results.map((result) => [result.index, result]));
    const outcome = (index: number) => {
      const result = byIndex.get(index)!;
      return result.ok
        ? ['ok', result.customerId, result.customerKey]
        : [result.error.status, result.customerId, result.error.data['reason']];
    };
    assert.deepEqual(outcome(0), ['ok', 'known-1', 'C-300001'], 'the same customer again: idempotent');
    assert.deepEqual(
      outcome(1),
      [409, 'known-1', 'customer_id_taken'],
      'another core customer under a taken customerId',
    );
    assert.deepEqual(outcome(2), [401, 'unknown-customer', 'customer_not_recognised']);
    assert.deepEqual(outcome(3), [400, 'has blanks', 'invalid_request']);
    const invalid = byIndex.get(3)!;
    assert.ok(!invalid.ok && Array.isArray(invalid.error.data['errors']));
    assert.deepEqual(outcome(4), ['ok', 'by-demographics', 'C-300002']);
    // The repeat starts a fresh session (docs/behaviour.md#registration-outcomes); the 409 starts one that is
    // ended again; the unknown customer and the bad body start none.
    assert.equal(sessionsStarted() - sessions, 3);
    assert.equal(activeSessions() - active, 2, 'the refused registration left no session at the core');
    assert.doesNotMatch(
      JSON.stringify(results),
      new RegExp(`${ada.accountNumber}|${ada.socialSecurityNumber}|${ada.birthDay}`),
      'no personal data in the results',
    );
  });

  it('a core answering 429 slows the batch down and fails nothing: one core session per customer all the same', async () => {
    const simulator = harness.services.simulator!;
    const sessions = sessionsStarted();
    simulator.setFaults({ errorRate: 1, errorStatus: 429 });
    let healing: Promise<void> | undefined;
    const progress: BulkRegistrationProgress[] = [];
    const started = Date.now();
    const results = await collect(
      cg.registerCustomers(formB('busy', 400_000, 120), {
        concurrency: 16,
        onProgress: (report) => {
          progress.push(report);
          // The core recovers while the batch waits out the first Retry-After.
          healing ??= new Promise((resolve) => setTimeout(resolve, 300)).then(() => {
            simulator.setFaults({});
          });
        },
      }),
    );
    await healing;
    assert.equal(results.length, 120);
    assert.deepEqual(
      results.filter((result) => !result.ok).map((result) => result.customerId),
      [],
    );
    assert.ok(
      results.some((result) => result.attempts > 1),
      'refused registrations were sent again',
    );
    assert.ok(Date.now() - started >= 1000, 'the batch waited out Retry-After (1 s)');
    assert.ok(
      progress.some((report) => report.throttled > 0 && report.concurrency < 16),
      'the batch slowed down',
    );
    assert.equal(sessionsStarted() - sessions, 120, 'a refused registration started nothing at the core');
  });

  it("the integrator guide's onboarding example runs as written", async () => {
    const customersFile = new URL(`.guide-customers-${process.pid}.jsonl`, REPOSITORY_ROOT);
    const script = new URL(`.guide-snippet-bulk-${process.pid}.mjs`, REPOSITORY_ROOT);
    const lines = [...formB('guide', 800_000, 30)].map((item) => JSON.stringify(registrationBody(item)));
    lines.splice(
      7,
      0,
      JSON.stringify({ customer: { customerKey: 'C-0000000' }, registration: { customerId: 'guide-unknown' } }),
      '',
    );
    writeFileSync(customersFile, `${lines.join('\n')}\n`);
    // Written inside the repository so that `@coregate/client` resolves from node_modules.
    writeFileSync(script, guideSnippet('bulk-registration'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [script.pathname], {
        env: {
          ...process.env,
          COREGATE_URL: served.baseUrl,
          CLIENT_ID: served.credentials.id,
          CLIENT_SECRET: served.credentials.secret,
          CUSTOMERS_FILE: customersFile.pathname,
        },
        timeout: 30_000,
      });
      assert.deepEqual(JSON.parse(stdout.trim()), {
        registered: 30,
        failed: [{ customerId: 'guide-unknown', status: 401, reason: 'customer_not_recognised' }],
      });
    } finally {
      rmSync(customersFile, { force: true });
      rmSync(script, { force: true });
    }
  });

  it('stopping the batch leaves only what was answered or in flight registered', async () => {
    const sessions = sessionsStarted();
    const controller = new AbortController();
    const seen: BulkRegistrationResult[] = [];
    // Counted where they are sent: a registration abandoned in flight may still reach the core
    // after the stop, later on a loaded host than any fixed wait.
    const counter = countingFetch();
    const counted = new CoregateClient({
      baseUrl: served.baseUrl,
      clientId: served.credentials.id,
      clientSecret: served.credentials.secret,
      fetch: counter.fetch,
    });
    const error = await (async () => {
      for await (const result of counted.registerCustomers(formB('stopped', 500_000, 5_000), {
        concurrency: 8,
        signal: controller.signal,
      })) {
        seen.push(result);
        if (seen.length === 40) controller.abort(new Error('stopped by the operator'));
      }
    })().catch((caught: unknown) => caught);
    assert.equal((error as Error).message, 'stopped by the operator');
    const sent = counter.count('/core/sessions');
    assert.ok(sent >= 40 && sent <= 40 + 8, `${sent} registrations sent for 40 answered and at most 8 in flight`);
    // Checking that nothing more is sent needs a quiet moment; a late send can only show as a
    // failure here, never a pass made by timing.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(counter.count('/core/sessions'), sent, 'nothing sent after the stop');
    const started = sessionsStarted() - sessions;
    assert.ok(
      started >= 40 && started <= sent,
      `${started} core sessions: the 40 answered, at most all that were sent`,
    );
  });
});

describe("registerCustomers and coregate's own rate limit", { skip: QUICKEST_BACKEND.skip, timeout: 120_000 }, () => {
  let harness: Harness;
  let cg: CoregateClient;

  before(async () => {
    // 120 a minute: a burst of 120, then 2 a second.
    const served = await listening({ COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '120' });
    harness = served.harness;
    // The budgets refill on the server's clock. Each refusal moves it on by the Retry-After it
    // asked for, as the client is about to wait that long: a request sent again finds the budget
    // refilled however slowly this machine runs, and nothing else moves the clock.
    cg = new CoregateClient({
      baseUrl: served.baseUrl,
      clientId: served.credentials.id,
      clientSecret: served.credentials.secret,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (response.status === 429) harness.clock.advance(Number(response.headers.get('retry-after')));
        return response;
      },
    });
  });

  after(() => harness?.close());

  it('429 rate_limited with Retry-After slows the batch and fails nothing', async () => {
    const sessions = harness.services.simulator!.stats().sessionsStarted;
    let last: BulkRegistrationProgress | undefined;
    const results = await collect(
      cg.registerCustomers(formB('limited', 600_000, 130), {
        concurrency: 16,
        onProgress: (report) => (last = report),
      }),
    );
    assert.equal(results.length, 130);
    assert.deepEqual(
      results.filter((result) => !result.ok).map((result) => result.customerId),
      [],
    );
    assert.ok(last!.throttled > 0, 'some were refused and sent again');
    assert.equal(harness.services.simulator!.stats().sessionsStarted - sessions, 130);
  });
});
