/**
 * Retries against a real `coregate serve` in front of a real `coregate core-sim`
 * with injected faults (docs/behaviour.md#control-endpoints): a core answering 5xx is a 502,
 * retried for GET and never for POST; once the core's circuit breaker is open the answer is 503
 * with `Retry-After`, which the client waits out — unless it asks for a longer wait than the
 * client accepts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CoregateClient, CoregateError, type CoregateClientOptions } from '@coregate/client';
import { startCoreSim, type CoreSim } from '../e2e/support/core-sim.js';
import {
  killAll,
  runCli,
  startServer,
  tempDataDir,
  type CreatedClient,
  type ServerProcess,
} from '../e2e/support/process.js';
import { createFreshDatabase, postgresSkip, type FreshDatabase } from '../support/postgres.js';
import { countingFetch, type CountingFetch } from './counting-fetch.js';

after(killAll);

const BREAKER_FAILURES = 3;

describe("@coregate/client retries against the simulator's faults", { skip: postgresSkip, timeout: 180_000 }, () => {
  let database: FreshDatabase;
  let sim: CoreSim;
  let server: ServerProcess;
  let data: { dir: string; remove: () => void };
  let created: CreatedClient;

  before(async () => {
    data = tempDataDir();
    // PostgreSQL rather than the embedded database: quicker to start on a busy machine.
    [database, sim] = await Promise.all([createFreshDatabase(), startCoreSim()]);
    const env = {
      DATABASE_URL: database.url,
      COREGATE_DATA_DIR: data.dir,
      COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      CORE_URL: sim.url,
      COREGATE_CORE_BREAKER_FAILURES: String(BREAKER_FAILURES),
      // The SDK's own retries are under test: the gateway passes each core failure on.
      COREGATE_CORE_RETRIES: '0',
      COREGATE_CORE_BREAKER_COOLDOWN_SECONDS: '1',
    };
    // Generous time limits: the machine running the whole suite may be busy.
    const create = await runCli(
      ['clients', 'create', '--name', 'sdk faults', '--platform', 'sdk-faults', '--json'],
      env,
      60_000,
    );
    assert.equal(create.code, 0, create.stderr);
    created = JSON.parse(create.stdout) as CreatedClient;
    server = await startServer(env, 60_000);
    await client(countingFetch()).registerCustomer({ customerId: 'faults-ada', customer: { customerKey: 'C-1001' } });
  });

  after(async () => {
    await server?.stop().catch(() => undefined);
    sim?.stop();
    await database?.drop();
    data?.remove();
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
    // The fault ends while the client waits for its first retry (250 ms).
    const healing = new Promise((resolve) => setTimeout(resolve, 100)).then(() => sim.faults({}));
    const accounts = await client(counter, { maxRetries: 2 }).listAccounts('faults-ada');
    await healing;
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
