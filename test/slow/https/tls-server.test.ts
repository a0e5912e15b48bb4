/**
 * `serve` as it runs (startServer from src/server/main.ts, PORT=0) with a self-signed
 * certificate: tokens over real HTTPS, the issuer and listening URL in https, and
 * a plain HTTP server on a non-loopback address refusing token requests. On a
 * fresh PostgreSQL database (a fresh embedded one takes seconds to create), or
 * the embedded database where PostgreSQL tests are skipped.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, fetch } from 'undici';
import { loadConfig } from '../../../src/config/config.js';
import { startServer, type RunningServer } from '../../../src/server/main.js';
import { basic } from '../../support/harness.js';
import { createFreshDatabase, postgresSkip, type FreshDatabase } from '../../support/postgres.js';
import { selfSignedCertificate, type TestCertificate } from '../../support/tls.js';

const databases: FreshDatabase[] = [];
after(() => Promise.all(databases.map((database) => database.drop())));

async function serverEnv(dataDir: string, extra: Record<string, string>): Promise<Record<string, string>> {
  const database = postgresSkip ? undefined : await createFreshDatabase();
  if (database) databases.push(database);
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    COREGATE_DATA_DIR: dataDir,
    ...(database ? { DATABASE_URL: database.url } : {}),
    COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // No demo client, no walk-through on stdout.
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

async function tokenOver(url: string, client: { id: string; secret: string }, dispatcher?: Agent) {
  const response = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(client.id, client.secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    ...(dispatcher ? { dispatcher } : {}),
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('serve with COREGATE_TLS_CERT_FILE and COREGATE_TLS_KEY_FILE', () => {
  let certificate: TestCertificate;
  let dataDir: string;
  let server: RunningServer;
  let agent: Agent;
  before(async () => {
    certificate = selfSignedCertificate();
    dataDir = mkdtempSync(join(tmpdir(), 'coregate-tls-data-'));
    server = await startServer(
      loadConfig(
        await serverEnv(dataDir, {
          COREGATE_TLS_CERT_FILE: certificate.certFile,
          COREGATE_TLS_KEY_FILE: certificate.keyFile,
        }),
      ),
    );
    agent = new Agent({ connect: { ca: certificate.cert } });
  });
  after(async () => {
    await agent?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    certificate?.remove();
  });

  it('listens on https and names that URL as the issuer', () => {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(server.services.issuer.get(), server.url);
  });

  it('issues a token over HTTPS to a client that trusts the certificate', async () => {
    const { client, secret } = await server.services.clientRegistry.create({ name: 'tls client' });
    const { status, body } = await tokenOver(server.url, { id: client.id, secret }, agent);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body['token_type'], 'Bearer');
    const claims = JSON.parse(Buffer.from(String(body['access_token']).split('.')[1]!, 'base64url').toString()) as {
      iss: string;
    };
    assert.equal(claims.iss, server.url);
  });

  it('is refused by a client that does not trust the certificate', async () => {
    const { client, secret } = await server.services.clientRegistry.create({ name: 'tls client' });
    await assert.rejects(tokenOver(server.url, { id: client.id, secret }));
  });
});

describe('serve over plain HTTP on a non-loopback address (HOST=0.0.0.0, no TLS, no trusted proxy)', () => {
  let dataDir: string;
  let server: RunningServer;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'coregate-plain-data-'));
    server = await startServer(
      loadConfig(await serverEnv(dataDir, { HOST: '0.0.0.0', COREGATE_ISSUER: 'https://auth.bank.example' })),
    );
  });
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses token requests with invalid_request "HTTPS is required"', async () => {
    const { client, secret } = await server.services.clientRegistry.create({ name: 'plain client' });
    const { status, body } = await tokenOver(server.url, { id: client.id, secret });
    assert.equal(status, 400);
    assert.deepEqual(body, { error: 'invalid_request', error_description: 'HTTPS is required' });
  });
});
