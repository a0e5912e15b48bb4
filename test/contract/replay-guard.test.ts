/**
 * The single-use store of proof identifiers, on every implementation: the database (PGlite
 * and PostgreSQL) and Redis. A key is accepted once until it expires, whichever instance
 * (standing for a process) sees it; after its expiry it may be used again.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { migrate } from '../../src/adapters/store/migrate.js';
import { RedisReplayGuard } from '../../src/adapters/replay/redis-replay-guard.js';
import { SqlReplayGuard } from '../../src/adapters/replay/sql-replay-guard.js';
import type { ReplayGuard } from '../../src/ports/replay-guard.js';
import { BACKENDS, type OpenBackend } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';
import { REDIS_URL, redisSkip } from '../support/redis.js';

function contract(
  name: string,
  skip: string | false,
  open: () => Promise<{ guards: [ReplayGuard, ReplayGuard]; close(): Promise<void> }>,
): void {
  describe(`replay guard (${name})`, { skip }, () => {
    let guards: [ReplayGuard, ReplayGuard];
    let close: () => Promise<void>;
    const clock = new FakeClock(new Date());
    before(async () => {
      ({ guards, close } = await open());
    });
    after(() => close?.());

    it('accepts a key once, in whichever instance sees it first, until it expires', async () => {
      const key = `dpop:${randomUUID()}`;
      const until = new Date(clock.now().getTime() + 60_000);
      assert.equal(await guards[0].firstUse(key, until, clock.now()), true);
      assert.equal(await guards[0].firstUse(key, until, clock.now()), false, 'again, same instance');
      assert.equal(await guards[1].firstUse(key, until, clock.now()), false, 'again, another instance');
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => guards[i % 2]!.firstUse(`race:${key}`, until, clock.now())),
      );
      assert.equal(results.filter(Boolean).length, 1, 'of concurrent first uses exactly one wins');
    });
  });
}

for (const backend of BACKENDS) {
  contract(backend.name, backend.skip, async () => {
    const opened: OpenBackend = await backend.open();
    await migrate(opened.database);
    return {
      guards: [new SqlReplayGuard(opened.database), new SqlReplayGuard(opened.database)],
      close: () => opened.close(),
    };
  });
}

contract('redis', redisSkip, async () => {
  const prefix = `coregate:test:${randomUUID()}:`;
  const make = () =>
    new RedisReplayGuard({
      url: REDIS_URL,
      keyPrefix: prefix,
      onFailure: (error) => assert.fail(String(error)),
    });
  const guards: [ReplayGuard, ReplayGuard] = [make(), make()];
  return {
    guards,
    async close() {
      await Promise.all(guards.map((guard) => guard.close()));
    },
  };
});

describe('replay guard (database): an expired key may be used again', () => {
  it('takes over a row whose expiry has passed', async () => {
    const opened = await BACKENDS[0]!.open();
    try {
      const guard = new SqlReplayGuard(opened.database);
      const clock = new FakeClock(new Date());
      const key = `client_assertion:${randomUUID()}`;
      assert.equal(await guard.firstUse(key, new Date(clock.now().getTime() + 1000), clock.now()), true);
      clock.advance(2);
      assert.equal(await guard.firstUse(key, new Date(clock.now().getTime() + 1000), clock.now()), true);
    } finally {
      await opened.close();
    }
  });
});
