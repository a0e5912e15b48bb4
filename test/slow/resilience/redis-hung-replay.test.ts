/**
 * The single-use check of proofs with a hung Redis (its own redis-server, paused with
 * SIGSTOP): a check that cannot be made refuses — 503 `temporarily_unavailable` with
 * `Retry-After` at the token endpoint, 503 Unavailable with `Retry-After` for a DPoP proof at
 * the gateway — never accepts a proof another process may have seen (docs/operations.md,
 * "Threat model"). After a few slow calls a breaker refuses at once, with one log line; once
 * Redis answers again, proofs are checked again.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { pino } from 'pino';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { basic, createHarness, TEST_ISSUER, type Harness } from '../../support/harness.js';
import { OwnRedisServer, redisServerSkip } from '../../support/redis-server.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

describe('Redis hung (SIGSTOP): proofs refused, not guessed', { skip: redisServerSkip(), timeout: 60_000 }, () => {
  const redis = new OwnRedisServer();
  let h: Harness;
  const lines: Array<{ level: number; msg: string }> = [];
  let keyClient: { id: string; privateKey: CryptoKey };
  let dpopKey: { privateKey: CryptoKey; jwk: JWK };
  let dpopToken: string;

  before(async () => {
    await redis.start();
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    h = await createHarness(QUICKEST_BACKEND, { logger, env: { COREGATE_REDIS_URL: redis.url } });
    h.clock.set(new Date());
    const keys = await generateKeyPair('ES256', { extractable: true });
    const { client } = await h.services.clientRegistry.create({
      name: 'keys',
      authMethod: 'private_key_jwt',
      jwks: { keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1' }] },
    });
    keyClient = { id: client.id, privateKey: keys.privateKey };
    const proofKeys = await generateKeyPair('ES256', { extractable: true });
    dpopKey = { privateKey: proofKeys.privateKey, jwk: await exportJWK(proofKeys.publicKey) };
    const secretClient = await h.client();
    const issued = await h.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: {
        authorization: basic(secretClient.id, secretClient.secret),
        'content-type': 'application/x-www-form-urlencoded',
        dpop: await proof('POST', '/oauth2/token'),
      },
      payload: 'grant_type=client_credentials',
    });
    assert.equal(issued.statusCode, 200, issued.body);
    dpopToken = issued.json<{ access_token: string }>().access_token;
  });
  after(async () => {
    await h?.close();
    await redis.stop();
  });

  const seconds = () => Math.floor(h.clock.now().getTime() / 1000);

  function assertion(): Promise<string> {
    return new SignJWT({
      iss: keyClient.id,
      sub: keyClient.id,
      aud: TEST_ISSUER,
      jti: randomUUID(),
      iat: seconds(),
      exp: seconds() + 60,
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .sign(keyClient.privateKey);
  }

  function proof(htm: string, path: string, accessToken?: string): Promise<string> {
    return new SignJWT({
      iat: seconds(),
      jti: randomUUID(),
      htm,
      htu: `${TEST_ISSUER}${path}`,
      ...(accessToken ? { ath: createHash('sha256').update(accessToken).digest('base64url') } : {}),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopKey.jwk })
      .sign(dpopKey.privateKey);
  }

  const tokenWith = (clientAssertion: string) =>
    h.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_assertion_type: JWT_BEARER,
        client_assertion: clientAssertion,
      }).toString(),
    });

  const accounts = async () =>
    h.app.inject({
      method: 'GET',
      url: '/core/accounts?customerId=nobody',
      headers: { authorization: `DPoP ${dpopToken}`, dpop: await proof('GET', '/core/accounts', dpopToken) },
    });

  it('refuses with 503 and Retry-After, fast once the breaker is open, and checks again once Redis answers', async () => {
    const used = await assertion();
    assert.equal((await tokenWith(used)).statusCode, 200, 'Redis up: accepted once');
    assert.equal((await accounts()).statusCode, 404, 'Redis up: a DPoP proof is checked');

    redis.pause();
    // The assertion used before, sent again: another process may have seen it, so no store may say "first use".
    const replayed = await tokenWith(used);
    assert.equal(replayed.statusCode, 503, replayed.body);
    assert.equal(replayed.json<{ error: string }>().error, 'temporarily_unavailable');
    assert.ok(Number(replayed.headers['retry-after']) >= 1, 'Retry-After');

    const atGateway = await accounts();
    assert.equal(atGateway.statusCode, 503, atGateway.body);
    assert.equal(atGateway.json<{ name: string }>().name, 'Unavailable');
    assert.ok(Number(atGateway.headers['retry-after']) >= 1, 'Retry-After at the gateway');

    // The breaker opens after three failed calls; from then on no call waits for Redis.
    await tokenWith(await assertion());
    const timings: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const t0 = performance.now();
      const answer = await tokenWith(await assertion());
      timings.push(performance.now() - t0);
      assert.equal(answer.statusCode, 503);
    }
    const opened = lines.filter((line) => line.msg.startsWith('proof replay store (COREGATE_REDIS_URL) down'));
    assert.equal(opened.length, 1, 'one line for the breaker opening');
    // Had each waited for Redis's command timeout (250 ms), the ten would take 2.5 s at least.
    const total = timings.reduce((sum, ms) => sum + ms, 0);
    assert.ok(total < 2500, `refused at once: ${timings.map((ms) => ms.toFixed(0)).join(', ')} ms`);

    redis.resume();
    // The breaker lets one probe through 5 s after it opened.
    let answer = await tokenWith(await assertion());
    for (const deadline = performance.now() + 10_000; answer.statusCode !== 200 && performance.now() < deadline;) {
      await sleep(250);
      answer = await tokenWith(await assertion());
    }
    assert.equal(answer.statusCode, 200, 'checked again');
    assert.equal((await tokenWith(used)).statusCode, 400, 'and the assertion used before is still a replay');
  });
});
