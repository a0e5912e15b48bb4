/**
 * Nothing is lost across a crash (docs/behaviour.md#webhook-delivery): a webhook event
 * committed with its registration by a `coregate serve` that is then killed with SIGKILL before
 * the event could be delivered is delivered by the next server on the same database
 * (PostgreSQL, and the embedded one's data directory). The receiver is down at first, so the
 * one attempt the first server makes fails and the delivery is still pending when the process
 * dies.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createFreshDatabase, postgresSkip } from '../support/postgres.js';
import { TestReceiver } from '../http/webhooks/receiver.js';
import { killAll, requestToken, runJson, startServer, tempDataDir, type CreatedClient } from './support/process.js';
import { freePort } from '../support/free-port.js';

after(killAll);

interface DeliveryRow {
  readonly status: string;
  readonly attempts: number;
  readonly eventType: string;
}

async function deliveredAfterCrash(storage: Record<string, string>): Promise<void> {
  const port = await freePort();
  const env = {
    ...storage,
    COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    COREGATE_ISSUER: 'http://coregate.crash.test',
    COREGATE_WEBHOOK_RETRY_SCHEDULE_SECONDS: '8,8,8,8,8',
  };
  const first = await startServer(env, 60_000);
  let second: Awaited<ReturnType<typeof startServer>> | undefined;
  const receiver = new TestReceiver();
  try {
    const client = await runJson<CreatedClient>(
      ['clients', 'create', '--name', 'crash', '--platform', 'crash-p', '--json'],
      env,
    );
    const hook = await runJson<{ id: string; secret: string }>(
      ['webhooks', 'add', '--platform', 'crash-p', '--url', `http://127.0.0.1:${port}/hooks`, '--json'],
      env,
    );
    const token = String((await requestToken(first.url, client)).body['access_token']);
    const registered = await fetch(`${first.url}/core/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer: { customerKey: 'C-1001' }, registration: { customerId: 'crash-1' } }),
    });
    assert.equal(registered.status, 200);
    // Killed once its attempt is recorded: were it killed mid-attempt, the delivery would
    // wait for its lease (30 s) to run out before another process could take it.
    for (let tries = 0; ; tries += 1) {
      const rows = await runJson<DeliveryRow[]>(['webhooks', 'deliveries', '--platform', 'crash-p', '--json'], env);
      if ((rows[0]?.attempts ?? 0) >= 1) break;
      assert.ok(tries < 100, 'the first server attempted the delivery');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    first.kill();
    await first.exited;

    const pending = await runJson<DeliveryRow[]>(['webhooks', 'deliveries', '--platform', 'crash-p', '--json'], env);
    assert.deepEqual(
      pending.map((d) => [d.eventType, d.status]),
      [['customer.registered', 'pending']],
      'still pending after the crash',
    );

    await receiver.startOn(port);
    second = await startServer(env, 60_000);
    const deadline = Date.now() + 40_000;
    while (receiver.received.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(receiver.received.length, 1, 'delivered by the new server');
    const body = new Webhook(hook.secret).verify(
      receiver.received[0]!.body,
      TestReceiver.headersOf(receiver.received[0]!),
    ) as { type: string };
    assert.equal(body.type, 'customer.registered');
    const delivered = await runJson<DeliveryRow[]>(['webhooks', 'deliveries', '--platform', 'crash-p', '--json'], env);
    assert.equal(delivered[0]!.status, 'delivered');
    assert.equal((await second.stop()).code, 0);
  } finally {
    first.kill();
    second?.kill();
    await receiver.close();
  }
}

describe('webhooks survive a crash', { timeout: 300_000 }, () => {
  it('delivers after kill -9 and a restart (PostgreSQL)', { skip: postgresSkip }, async (t) => {
    const database = await createFreshDatabase();
    t.after(() => database.drop());
    await deliveredAfterCrash({ DATABASE_URL: database.url });
  });

  it('delivers after kill -9 and a restart (embedded database)', async (t) => {
    const data = tempDataDir();
    t.after(data.remove);
    await deliveredAfterCrash({ COREGATE_DATA_DIR: data.dir });
  });
});
