/**
 * Retries against a real `coregate serve` in front of a real `coregate core-sim`
 * with injected faults (docs/behaviour.md#control-endpoints): a core answering 5xx is a 502,
 * retried for GET and never for POST; once the core's circuit breaker is open the answer is 503
 * with `Retry-After`, which the client waits out — unless it asks for a longer wait than the
 * client accepts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoregateClient, CoregateError, type CoregateClientOptions } from '@coregate/client';
import { startCoreSim, type CoreSim } from '../e2e/support/core-sim.js';
import { killAll, runCli, type CreatedClient, type ServerProcess } from '../e2e/support/process.js';
import { openSharedDatabase, type SharedDatabase } from '../e2e/support/shared-database.js';
import { postgresSkip } from '../support/postgres.js';
import { countingFetch, type CountingFetch } from './counting-fetch.js';

after(killAll);

const BREAKER_FAILURES = 3;

describe("@coregate/client retries against the simulator's faults", { skip: postgresSkip, timeout: 180_000 }, () => {
  let shared: SharedDatabase | undefined;
  let sim: CoreSim;
  let server: ServerProcess;
  let created: CreatedClient;

  before(async () => {
    // PostgreSQL rather than the embedded database: quicker to start on a busy machine.
    [shared, sim] = await Promise.all([openSharedDatabase(), startCoreSim()]);
    const env = {
      ...shared.env,
      CORE_URL: sim.url,
      COREGATE_CORE_BREAKER_FAILURES: String(BREAKER_FAILURES),
      // The SDK's own retries are under test: the gateway passes each core failure on.
      COREGATE_CORE_RETRIES: '0',
      // Long enough for the test's next call to find the breaker still open on a loaded host
      // (at 1 s, it sometimes found it half-open and was answered 200 at once).
      COREGATE_CORE_BREAKER_COOLDOWN_SECONDS: '3',
    };
    // Generous time limits: the machine running the whole suite may be busy.
    const create = await runCli(
      ['clients', 'create', '--name', 'sdk faults', '--platform', 'sdk-faults', '--json'],
      env,
      60_000,
    );
    assert.equal(create.code, 0, create.stderr);
    created = JSON.parse(create.stdout) as CreatedClient;
    server = await shared.startServer(env);
    await client(countingFetch()).registerCustomer({ customerId: 'faults-ada', customer: { customerKey: 'C-1001' } });
  });

  after(async () => {
    await shared?.close();
    sim?.stop();
  });

  function client(counter: CountingFetch, options: Partial<CoregateClientOptions> = {}): CoregateClient {
    return new CoregateClient({
      baseUrl: server.url,
      clientId: created.client_id,
      clientSecret: created.client_secret,
      fetch: counter.fetch,
      ...options,
    });
  }

  /** No faults, and a closed breaker (a successful call after its cooldown) with no failures counted. */
  async function heal(): Promise<void> {
    await sim.faults({});
    await client(countingFetch(), { maxRetries: 10, maxRetryWaitMs: 2_000 }).listAccounts('faults-ada');
  }

  it('retries a 502 on GET a bounded number of times, then throws it', async () => {
    await heal();
    await sim.faults({ errorRate: 1, errorStatus: 500 });
    const counter = countingFetch();
    const error = await client(counter, { maxRetries: 1 })
      .listAccounts('faults-ada')
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof CoregateError, String(error));
    assert.equal(error.status, 502);
    assert.equal(error.name, 'BadGateway');
    assert.equal(error.className, 'bad-gateway');
    assert.equal(counter.count('/core/accounts'), 2, 'the call and one retry');
  });

  it('a 502 on GET that goes away is retried into a success', async () => {
    await heal();
    await sim.faults({ errorRate: 1, errorStatus: 503 });
    const counter = countingFetch();
    // The fault ends once the first 502 has come back and before the client sees it, so the
    // retry finds the core well; healing after 100 ms of wall clock, as this once did, came
    // before the first answer on a loaded host (no 502 at all).
    let healed: Promise<void> | undefined;
    const healing: CountingFetch = {
      ...counter,
      async fetch(input, init) {
        const response = await counter.fetch(input, init);
        if (response.status === 502) healed ??= sim.faults({});
        await healed;
        return response;
      },
    };
    const accounts = await client(healing, { maxRetries: 2 }).listAccounts('faults-ada');
    assert.equal(accounts.length, 3);
    assert.equal(counter.count('/core/accounts', 502), 1);
    assert.equal(counter.count('/core/accounts', 200), 1);
  });

  it('never retries a POST answered 502', async () => {
    await heal();
    await sim.faults({ errorRate: 1, errorStatus: 500 });
    const counter = countingFetch();
    const error = await client(counter, { maxRetries: 3 })
      .registerCustomer({ customerId: 'faults-bob', customer: { customerKey: 'C-1002' } })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof CoregateError, String(error));
    assert.equal(error.status, 502);
    assert.equal(counter.count('/core/sessions'), 1, 'a registration that may have reached the core is not repeated');
  });

  /** Fails the core until the breaker opens, then lets the core recover (the breaker stays open for its cooldown). */
  async function openBreaker(): Promise<void> {
    await heal();
    await sim.faults({ errorRate: 1, errorStatus: 500 });
    const raw = client(countingFetch(), { maxRetries: 0 });
    for (let index = 0; index < BREAKER_FAILURES; index++) await raw.listAccounts('faults-ada').catch(() => undefined);
    await sim.faults({});
  }

  it('waits out Retry-After on 503 (circuit open) and then succeeds', async () => {
    await openBreaker();
    const counter = countingFetch();
    const started = Date.now();
    const accounts = await client(counter).listAccounts('faults-ada');
    assert.equal(accounts.length, 3);
    assert.ok(counter.count('/core/accounts', 503) >= 1, 'the first answer was 503');
    assert.equal(counter.count('/core/accounts', 200), 1);
    assert.ok(Date.now() - started >= 500, 'it waited for Retry-After');
  });

  it('a 503 asking for a longer wait than maxRetryWaitMs is thrown at once, with retryAfterSeconds', async () => {
    await openBreaker();
    const counter = countingFetch();
    const error = await client(counter, { maxRetryWaitMs: 100 })
      .registerCustomer({ customerId: 'faults-bob', customer: { customerKey: 'C-1002' } })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof CoregateError, String(error));
    assert.equal(error.status, 503);
    assert.equal(error.name, 'Unavailable');
    assert.ok((error.retryAfterSeconds ?? 0) >= 1);
    assert.equal(counter.count('/core/sessions'), 1);
  });
});
