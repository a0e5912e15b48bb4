/**
 * The token endpoint's answer does not tell which client ids exist (docs/operations.md, "Threat
 * model"): an unknown client costs what a known client with a wrong credential costs — one HMAC
 * of the presented secret (`client_secret_basic`), one signature check of the assertion
 * (`private_key_jwt`, against a decoy key) — and neither waits for its audit row. Counted, not
 * timed: the hasher's comparisons, and WebCrypto's signature checks (jose verifies with them).
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it, type TestContext } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { ClientAuthenticator } from '../../../src/app/authenticate-client.js';
import { AuditTrail } from '../../../src/app/audit-trail.js';
import { JoseClientAssertionVerifier } from '../../../src/adapters/crypto/jose-client-assertion.js';
import { encryptionKey } from '../../../src/adapters/crypto/encryption-keys.js';
import { HmacCredentialHasher } from '../../../src/adapters/crypto/hmac-credential-hasher.js';
import { SqlAuditLog } from '../../../src/adapters/store/sql-audit-log.js';
import type { AuditEvent, AuditLog, AuditQuery } from '../../../src/ports/audit-log.js';
import type { CredentialHasher } from '../../../src/ports/credential-hasher.js';
import { BACKENDS } from '../../support/backends.js';
import { basic, createHarness, TEST_ISSUER, type Harness } from '../../support/harness.js';

/** The real hasher, its comparisons counted. */
class CountingHasher implements CredentialHasher {
  comparisons = 0;
  constructor(private readonly inner: CredentialHasher) {}
  generate(prefix: string) {
    return this.inner.generate(prefix);
  }
  digest(credential: string) {
    return this.inner.digest(credential);
  }
  matches(credential: string, digest: string) {
    this.comparisons += 1;
    return this.inner.matches(credential, digest);
  }
}

/** The real audit log, each write held until {@link release}. */
class HeldAuditLog implements AuditLog {
  inner: AuditLog | undefined;
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));
  held = 0;
  async record(event: AuditEvent) {
    this.held += 1;
    await this.gate;
    await this.inner!.record(event);
  }
  list(query: AuditQuery) {
    return this.inner!.list(query);
  }
  release() {
    this.opened();
  }
}

/** Counts WebCrypto signature checks during `run`. */
async function signatureChecks(t: TestContext, run: () => Promise<unknown>): Promise<number> {
  const spy = t.mock.method(globalThis.crypto.subtle, 'verify');
  try {
    await run();
    return spy.mock.callCount();
  } finally {
    spy.mock.restore();
  }
}

for (const backend of BACKENDS) {
  describe(
    `no client-id oracle at the token endpoint (${backend.name})`,
    { skip: backend.skip, timeout: 60_000 },
    () => {
      let h: Harness;
      const heldLog = new HeldAuditLog();
      before(async () => {
        h = await createHarness(backend, {
          // A request may wait two minutes for the database, and the audit write never ends until the
          // test is over: a refusal that waited for its row would outlast the test's timeout.
          env: { COREGATE_DB_TIMEOUT_MS: '120000' },
          app: { audit: new AuditTrail(heldLog, { now: () => new Date() }, { waitMs: 600_000, onFailure: () => {} }) },
        });
        heldLog.inner = new SqlAuditLog(h.services.database);
      });
      after(async () => {
        heldLog.release();
        await h?.close();
      });

      it('client_secret_basic: one HMAC comparison for an unknown client, as for a wrong secret', async () => {
        const hasher = new CountingHasher(new HmacCredentialHasher([encryptionKey(randomBytes(32))]));
        const authenticator = new ClientAuthenticator(h.services.clientDirectory, hasher);
        const known = await h.client();
        for (const [why, clientId] of [
          ['unknown client', `cg_${randomBytes(12).toString('hex')}`],
          ['known client, wrong secret', known.id],
        ]) {
          const before = hasher.comparisons;
          await assert.rejects(authenticator.authenticate({ clientId: clientId!, clientSecret: 'cgs_wrong' }));
          assert.equal(hasher.comparisons - before, 1, why);
        }
      });

      it('private_key_jwt: one signature check for an unknown client or one without keys, as for a wrong key', async (t) => {
        const authenticator = new ClientAuthenticator(
          h.services.clientDirectory,
          new HmacCredentialHasher([encryptionKey(randomBytes(32))]),
          undefined,
          h.clock,
          {
            verifier: new JoseClientAssertionVerifier(),
            replays: h.services.replayGuard,
            audiences: () => [TEST_ISSUER],
          },
        );
        const registered = await generateKeyPair('ES256', { extractable: true });
        const { client: keyClient } = await h.services.clientRegistry.create({
          name: 'keys',
          authMethod: 'private_key_jwt',
          jwks: { keys: [{ ...(await exportJWK(registered.publicKey)), kid: 'k1' }] },
        });
        const secretClient = await h.client();
        const stranger = await generateKeyPair('ES256');
        const now = Math.floor(h.clock.now().getTime() / 1000);
        const signed = (clientId: string) =>
          new SignJWT({ iss: clientId, sub: clientId, aud: TEST_ISSUER, jti: randomUUID(), iat: now, exp: now + 60 })
            .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
            .sign(stranger.privateKey);
        for (const [why, clientId] of [
          ['unknown client', `cg_${randomBytes(12).toString('hex')}`],
          ['a client without keys', secretClient.id],
          ['known client, another key', keyClient.id],
        ] as const) {
          const assertion = await signed(clientId);
          const checks = await signatureChecks(t, () =>
            assert.rejects(authenticator.authenticateWithAssertion(assertion)),
          );
          assert.equal(checks, 1, why);
        }
      });

      it(
        'a refused known client is answered without waiting for its audit row, like an unknown one',
        { timeout: 20_000 },
        async () => {
          const known = await h.client();
          const heldBefore = heldLog.held;
          for (const clientId of [known.id, `cg_${randomBytes(12).toString('hex')}`]) {
            const response = await h.app.inject({
              method: 'POST',
              url: '/oauth2/token',
              headers: {
                authorization: basic(clientId, 'cgs_wrong'),
                'content-type': 'application/x-www-form-urlencoded',
              },
              payload: 'grant_type=client_credentials',
            });
            assert.equal(response.json<{ error: string }>().error, 'invalid_client');
          }
          assert.equal(heldLog.held - heldBefore, 1, "the known client's row is being written, not waited for");
        },
      );
    },
  );
}
